import { resolve } from 'node:path';

/**
 * The environment that makes a service write a CPU profile to `dir` when it stops (`--profile DIR`
 * of the benches; tools/cpu-profile.js, whose profile restarts on SIGUSR2).
 */
export function cpuProfileEnv(dir: string): Record<string, string> {
  return { NODE_OPTIONS: `--require ${resolve(__dirname, '..', '..', 'tools', 'cpu-profile.js')}`, CPU_PROFILE_DIR: resolve(dir) };
}
