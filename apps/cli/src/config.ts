import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { z } from 'zod';
import { DEFAULT_BASE_URL } from '@trawl/sdk';
import { CliError } from './cli-error';

/**
 * The variables the CLI reads, taken from `process.env` once in main.ts; nothing else in the CLI
 * reads the environment, so tests pass their own.
 */
export interface CliEnvironment {
  /** The API key; beaten by `--api-key`, beats the config file. */
  TRAWL_API_KEY?: string;
  /** The API base URL; beaten by `--base-url`, beats the config file. */
  TRAWL_BASE_URL?: string;
  /** Path of the config file; beaten by `--config`. */
  TRAWL_CONFIG?: string;
  /** The config file is `$XDG_CONFIG_HOME/trawl/config.json` when set, else under `$HOME/.config`. */
  XDG_CONFIG_HOME?: string;
  HOME?: string;
}

/** The CLI's variables out of a whole environment (default `process.env`); empty values count as unset. */
export function cliEnvironment(env: Record<string, string | undefined> = process.env): CliEnvironment {
  const names = ['TRAWL_API_KEY', 'TRAWL_BASE_URL', 'TRAWL_CONFIG', 'XDG_CONFIG_HOME', 'HOME'] as const;
  const picked: CliEnvironment = {};
  for (const name of names) {
    const value = env[name];
    if (value !== undefined && value !== '') picked[name] = value;
  }
  return picked;
}

/** Global flags that say where the API is (`--api-key`, `--base-url`, `--config`). */
export interface ConnectionFlags {
  apiKey?: string;
  baseUrl?: string;
  config?: string;
}

/** Where a setting came from, for messages (never the key itself). */
export type SettingSource = 'flag' | 'environment' | 'config file' | 'default';

/** Key and base URL the client is made with. */
export interface ResolvedConfig {
  /** Undefined when none was found: commands that call the API then fail with exit code 4. */
  apiKey: string | undefined;
  baseUrl: string;
  sources: { apiKey: SettingSource | undefined; baseUrl: SettingSource };
  /** The config file looked at, read or not. */
  configFile: string;
}

/** `{ "api_key": …, "base_url": … }`; other members are left alone (a later CLI may add some). */
const configFileSchema = z.object({
  api_key: z.string().min(1, { error: 'must not be empty' }).optional(),
  base_url: z.string().optional(),
});

type ConfigFile = z.infer<typeof configFileSchema>;

/** Reads a file's text, or undefined when it does not exist. */
export type ReadTextFile = (path: string) => string | undefined;

/** Reads a file from disk; undefined when there is none (any other read error is thrown). */
export const readTextFileFromDisk: ReadTextFile = (path) => {
  try {
    return readFileSync(path, 'utf8');
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code === 'ENOENT') return undefined;
    throw CliError.usage(`cannot read config file ${path}: ${(error as Error).message}`);
  }
};

/**
 * Key and base URL, each from the first place that has it: flag, then environment
 * (`TRAWL_API_KEY`, `TRAWL_BASE_URL`), then the config file (`--config`, else `$TRAWL_CONFIG`,
 * else `~/.config/trawl/config.json`); the base URL defaults to `http://localhost:8080`.
 *
 * @throws CliError `usage` when a config file named by `--config` or `$TRAWL_CONFIG` is missing,
 *   when the file is not valid JSON of the expected shape, or when the base URL is not an http(s) URL.
 */
export function resolveConfig(
  flags: ConnectionFlags,
  env: CliEnvironment,
  readTextFile: ReadTextFile = readTextFileFromDisk,
): ResolvedConfig {
  const { path: configFile, named } = configFilePath(flags, env);
  // The file is read only when a flag or variable leaves something to find in it.
  const needsFile = (flags.apiKey ?? env.TRAWL_API_KEY) === undefined || (flags.baseUrl ?? env.TRAWL_BASE_URL) === undefined;
  const file = needsFile || named ? readConfigFile(configFile, named, readTextFile) : {};

  const [apiKey, apiKeySource] = firstOf<string>([flags.apiKey, 'flag'], [env.TRAWL_API_KEY, 'environment'], [file.api_key, 'config file']);
  const [baseUrl, baseUrlSource] = firstOf<string>(
    [flags.baseUrl, 'flag'],
    [env.TRAWL_BASE_URL, 'environment'],
    [file.base_url, 'config file'],
  );
  const chosenBaseUrl = baseUrl ?? DEFAULT_BASE_URL;
  const source: SettingSource = baseUrlSource ?? 'default';
  if (!isHttpUrl(chosenBaseUrl)) {
    throw CliError.usage(
      `the base URL from the ${source === 'config file' ? `config file ${configFile}` : source} is not an http(s) URL: ${chosenBaseUrl}`,
    );
  }
  return { apiKey, baseUrl: chosenBaseUrl, sources: { apiKey: apiKeySource, baseUrl: source }, configFile };
}

/** The config file's path, and whether the user named it (then it must exist). */
export function configFilePath(flags: Pick<ConnectionFlags, 'config'>, env: CliEnvironment): { path: string; named: boolean } {
  const named = flags.config ?? env.TRAWL_CONFIG;
  if (named !== undefined) return { path: named, named: true };
  const configHome = env.XDG_CONFIG_HOME ?? join(env.HOME ?? '.', '.config');
  return { path: join(configHome, 'trawl', 'config.json'), named: false };
}

function readConfigFile(path: string, named: boolean, readTextFile: ReadTextFile): ConfigFile {
  const text = readTextFile(path);
  if (text === undefined) {
    if (named) throw CliError.usage(`config file ${path} does not exist`);
    return {};
  }
  let json: unknown;
  try {
    json = JSON.parse(text);
  } catch (error) {
    throw CliError.usage(`config file ${path} is not JSON: ${(error as Error).message}`);
  }
  const parsed = configFileSchema.safeParse(json);
  if (!parsed.success) {
    const issues = parsed.error.issues.map((issue) => `${issue.path.join('.') || '(root)'} ${issue.message}`).join('; ');
    throw CliError.usage(`config file ${path}: ${issues}`);
  }
  return parsed.data;
}

function firstOf<T>(...candidates: [T | undefined, SettingSource][]): [T | undefined, SettingSource | undefined] {
  for (const [value, source] of candidates) if (value !== undefined && value !== '') return [value, source];
  return [undefined, undefined];
}

function isHttpUrl(value: string): boolean {
  try {
    const url = new URL(value);
    return url.protocol === 'http:' || url.protocol === 'https:';
  } catch {
    return false;
  }
}
