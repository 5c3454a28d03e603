import { execFile, execFileSync } from 'node:child_process';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { promisify } from 'node:util';
import { stringify } from 'yaml';
import { REPO_ROOT } from './used-metrics';

const run = promisify(execFile);

/** The folder with helm, kubectl and promtool (tools/deploy-tools.sh; cached after the first run). */
export function deployTools(): string {
  return execFileSync(join(REPO_ROOT, 'tools', 'deploy-tools.sh'), { encoding: 'utf8' }).trim();
}

/** Runs promtool with `args`; answers its output, or throws with it. */
export async function promtool(args: string[]): Promise<string> {
  const { stdout, stderr } = await run(join(deployTools(), 'promtool'), args, { cwd: REPO_ROOT }).catch(
    (error: { stdout?: string; stderr?: string; message: string }) => {
      throw new Error(`promtool ${args.join(' ')} failed:\n${error.stdout ?? ''}${error.stderr ?? error.message}`);
    },
  );
  return `${stdout}${stderr}`;
}

/**
 * Grafana's variables replaced by values PromQL accepts, so promtool can parse a panel's
 * expression: ranges by a duration, label values by a string, `$k` by a number.
 */
export function grafanaToPromql(expr: string): string {
  return expr
    .replace(/\$__rate_interval|\$__interval|\$__range/g, '5m')
    .replace(/\$k\b/g, '10')
    .replace(/\$\{(\w+)\}|\$(\w+)/g, 'x');
}

/** Parses expressions with `promtool check rules` (each one a recording rule); throws naming the bad ones. */
export async function checkExpressions(exprs: string[]): Promise<void> {
  const dir = mkdtempSync(join(tmpdir(), 'trawl-promql-'));
  try {
    const file = join(dir, 'expressions.yaml');
    writeFileSync(
      file,
      stringify({ groups: [{ name: 'dashboards', rules: exprs.map((expr, i) => ({ record: `trawl:dashboard_expression:${i}`, expr })) }] }),
    );
    await promtool(['check', 'rules', file]);
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
}
