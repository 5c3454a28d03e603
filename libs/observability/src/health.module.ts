import { Controller, DynamicModule, Get, Header, HttpCode, Inject, Module, Res } from '@nestjs/common';
import { Registry } from 'prom-client';

/** A named readiness check; `/readyz` answers 503 while any of them is false. */
export interface ReadinessCheck {
  name: string;
  check(): Promise<boolean> | boolean;
}

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

  @Get('readyz')
  async readyz(@Res() reply: ReplyLike) {
    const results = await Promise.all(
      this.checks.map(async (c) => [c.name, await Promise.resolve(c.check()).catch(() => false)] as const),
    );
    const ready = results.every(([, ok]) => ok);
    reply.status(ready ? 200 : 503).header('content-type', 'application/json').send(
      JSON.stringify({ status: ready ? 'ready' : 'not_ready', checks: Object.fromEntries(results) }),
    );
  }

  @Get('metrics')
  @Header('content-type', 'text/plain; version=0.0.4; charset=utf-8')
  async metrics() {
    return this.registry.metrics();
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
