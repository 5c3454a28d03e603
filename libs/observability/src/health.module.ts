import { Controller, DynamicModule, Get, Header, HttpCode, Inject, Module, Res } from '@nestjs/common';
import { Registry } from 'prom-client';

/** What a readiness check answers: ready or not, and, when not, optionally why (for operators). */
export type ReadinessResult = boolean | { ok: boolean; reason?: string };

/**
 * A named readiness check; `/readyz` answers 503 while any of them is not ok. A check that throws,
 * or does not answer within 3 s, is not ok.
 */
export interface ReadinessCheck {
  name: string;
  check(): Promise<ReadinessResult> | ReadinessResult;
}

/** Longest a readiness check may take before it counts as not ok, in ms (a probe must not hang). */
const CHECK_TIMEOUT_MS = 3_000;

export const READINESS_CHECKS = Symbol('READINESS_CHECKS');
export const METRICS_REGISTRY = Symbol('METRICS_REGISTRY');

interface ReplyLike {
  status(code: number): ReplyLike;
  header(name: string, value: string): ReplyLike;
  send(body: unknown): void;
}

@Controller()
class HealthController {
  constructor(
    @Inject(READINESS_CHECKS) private readonly checks: ReadinessCheck[],
    @Inject(METRICS_REGISTRY) private readonly registry: Registry,
  ) {}

  @Get('healthz')
  @HttpCode(200)
  healthz() {
    return { status: 'ok' };
  }

  /**
   * 200 when every check is ok, else 503; the body is `{status, checks: {name: boolean}, reasons}`,
   * `reasons` naming why each failing check that said so is not ok.
   */
  @Get('readyz')
  async readyz(@Res() reply: ReplyLike) {
    const report = await readinessReport(this.checks);
    reply
      .status(report.status === 'ready' ? 200 : 503)
      .header('content-type', 'application/json')
      .send(JSON.stringify(report));
  }

  @Get('metrics')
  @Header('content-type', 'text/plain; version=0.0.4; charset=utf-8')
  async metrics() {
    return this.registry.metrics();
  }
}

/** The body of `/readyz`: `{status, checks: {name: boolean}, reasons: {name: why}}` (reasons of failing checks only). */
export async function readinessReport(
  checks: ReadinessCheck[],
): Promise<{ status: 'ready' | 'not_ready'; checks: Record<string, boolean>; reasons: Record<string, string> }> {
  const results = await Promise.all(checks.map(async (c) => [c.name, await runCheck(c)] as const));
  const ready = results.every(([, r]) => r.ok);
  return {
    status: ready ? 'ready' : 'not_ready',
    checks: Object.fromEntries(results.map(([name, r]) => [name, r.ok])),
    reasons: Object.fromEntries(results.filter(([, r]) => !r.ok && r.reason).map(([name, r]) => [name, r.reason as string])),
  };
}

async function runCheck(check: ReadinessCheck): Promise<{ ok: boolean; reason?: string }> {
  let timer: NodeJS.Timeout | undefined;
  const late = new Promise<{ ok: boolean; reason: string }>((resolve) => {
    timer = setTimeout(() => resolve({ ok: false, reason: `no answer within ${CHECK_TIMEOUT_MS} ms` }), CHECK_TIMEOUT_MS);
  });
  try {
    const answer = await Promise.race([Promise.resolve().then(() => check.check()), late]);
    return typeof answer === 'boolean' ? { ok: answer } : { ok: answer.ok === true, reason: answer.reason };
  } catch (error) {
    return { ok: false, reason: (error as Error)?.message ?? String(error) };
  } finally {
    clearTimeout(timer);
  }
}

/** `/healthz`, `/readyz` and `/metrics`, the same on every service. */
@Module({})
export class HealthModule {
  static register(options: { registry: Registry; checks: ReadinessCheck[] }): DynamicModule {
    return {
      module: HealthModule,
      controllers: [HealthController],
      providers: [
        { provide: READINESS_CHECKS, useValue: options.checks },
        { provide: METRICS_REGISTRY, useValue: options.registry },
      ],
    };
  }
}
