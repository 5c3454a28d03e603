import { execFile } from 'node:child_process';
import { promisify } from 'node:util';
import type { EngineVersion } from './identity-generator';

const run = promisify(execFile);

/** `156.0.8078.108` as an engine version. */
export function parseEngineVersion(text: string): EngineVersion | undefined {
  const match = /\b(\d+)\.(\d+)\.(\d+)\.(\d+)\b/.exec(text);
  return match ? { major: Number(match[1]), fullVersion: match[0] } : undefined;
}

/**
 * The version of the Chromium at `executablePath` (`chromium --version`): what every identity
 * claims, so the user agent and client hints name the engine that really renders.
 *
 * @throws Error when Chromium does not run or prints no version.
 */
export async function readEngineVersion(executablePath: string, timeoutMs = 10_000): Promise<EngineVersion> {
  const { stdout } = await run(executablePath, ['--version'], { timeout: timeoutMs });
  const version = parseEngineVersion(stdout);
  if (!version) throw new Error(`${executablePath} --version printed no version: ${stdout.trim().slice(0, 200)}`);
  return version;
}
