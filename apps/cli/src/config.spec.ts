import { CliError } from './cli-error';
import { cliEnvironment, configFilePath, resolveConfig, type ReadTextFile } from './config';

const HOME = '/home/ada';
const DEFAULT_FILE = '/home/ada/.config/trawl/config.json';

/** A file system of the given files only. */
function files(contents: Record<string, string>): ReadTextFile & { reads: string[] } {
  const reads: string[] = [];
  const read = (path: string): string | undefined => {
    reads.push(path);
    return contents[path];
  };
  return Object.assign(read, { reads });
}

describe('resolveConfig', () => {
  const file = files({ [DEFAULT_FILE]: JSON.stringify({ api_key: 'file-key', base_url: 'https://file.example' }) });

  it('takes the flag over the environment over the config file', () => {
    const config = resolveConfig(
      { apiKey: 'flag-key', baseUrl: 'https://flag.example' },
      { HOME, TRAWL_API_KEY: 'env-key', TRAWL_BASE_URL: 'https://env.example' },
      file,
    );
    expect(config).toMatchObject({ apiKey: 'flag-key', baseUrl: 'https://flag.example', sources: { apiKey: 'flag', baseUrl: 'flag' } });
  });

  it('takes the environment over the config file', () => {
    const config = resolveConfig({}, { HOME, TRAWL_API_KEY: 'env-key', TRAWL_BASE_URL: 'https://env.example' }, file);
    expect(config).toMatchObject({
      apiKey: 'env-key',
      baseUrl: 'https://env.example',
      sources: { apiKey: 'environment', baseUrl: 'environment' },
    });
  });

  it('takes each setting on its own: the key from the environment, the base URL from the file', () => {
    const config = resolveConfig({}, { HOME, TRAWL_API_KEY: 'env-key' }, file);
    expect(config).toMatchObject({
      apiKey: 'env-key',
      baseUrl: 'https://file.example',
      sources: { apiKey: 'environment', baseUrl: 'config file' },
    });
  });

  it('reads ~/.config/trawl/config.json when nothing else is set', () => {
    expect(resolveConfig({}, { HOME }, file)).toMatchObject({
      apiKey: 'file-key',
      baseUrl: 'https://file.example',
      configFile: DEFAULT_FILE,
    });
  });

  it('falls back to http://localhost:8080 and no key when there is no config file', () => {
    expect(resolveConfig({}, { HOME }, files({}))).toMatchObject({
      apiKey: undefined,
      baseUrl: 'http://localhost:8080',
      sources: { apiKey: undefined, baseUrl: 'default' },
    });
  });

  it('does not read the config file when the flags and environment give everything', () => {
    const read = files({});
    resolveConfig({}, { HOME, TRAWL_API_KEY: 'k', TRAWL_BASE_URL: 'http://api.test' }, read);
    expect(read.reads).toEqual([]);
  });

  it('reads the file of --config over $TRAWL_CONFIG over $XDG_CONFIG_HOME', () => {
    const read = files({
      '/flag.json': '{"api_key":"from-flag-file"}',
      '/env.json': '{"api_key":"from-env-file"}',
      '/xdg/trawl/config.json': '{"api_key":"from-xdg"}',
    });
    expect(resolveConfig({ config: '/flag.json' }, { HOME, TRAWL_CONFIG: '/env.json', XDG_CONFIG_HOME: '/xdg' }, read).apiKey).toBe(
      'from-flag-file',
    );
    expect(resolveConfig({}, { HOME, TRAWL_CONFIG: '/env.json', XDG_CONFIG_HOME: '/xdg' }, read).apiKey).toBe('from-env-file');
    expect(resolveConfig({}, { HOME, XDG_CONFIG_HOME: '/xdg' }, read).apiKey).toBe('from-xdg');
  });

  it('fails with a usage error when a config file the user named does not exist', () => {
    expect(() => resolveConfig({ config: '/missing.json' }, { HOME }, files({}))).toThrow(
      new CliError('usage', 'usage', 'config file /missing.json does not exist'),
    );
  });

  it('fails with a usage error naming the file when it is not JSON or not of the expected shape', () => {
    expect(() => resolveConfig({}, { HOME }, files({ [DEFAULT_FILE]: '{ api_key: ' }))).toThrow(
      /config file \/home\/ada\/.config\/trawl\/config.json is not JSON/,
    );
    expect(() => resolveConfig({}, { HOME }, files({ [DEFAULT_FILE]: '{"api_key": 42}' }))).toThrow(/config.json: api_key/);
  });

  it('refuses a base URL that is not http(s), naming where it came from', () => {
    expect(() => resolveConfig({ baseUrl: 'localhost:8080' }, { HOME, TRAWL_API_KEY: 'k' }, files({}))).toThrow(
      /base URL from the flag is not an http\(s\) URL: localhost:8080/,
    );
  });

  it('never puts the key in an error message', () => {
    const read = files({ [DEFAULT_FILE]: '{"api_key":"sk-secret","base_url":"ftp://x"}' });
    expect(() => resolveConfig({}, { HOME }, read)).toThrow(expect.objectContaining({ message: expect.not.stringContaining('sk-secret') }));
  });
});

describe('configFilePath', () => {
  it('is ~/.config/trawl/config.json by default, and not one the user named', () => {
    expect(configFilePath({}, { HOME })).toEqual({ path: DEFAULT_FILE, named: false });
    expect(configFilePath({}, { HOME, TRAWL_CONFIG: '/etc/trawl.json' })).toEqual({ path: '/etc/trawl.json', named: true });
  });
});

describe('cliEnvironment', () => {
  it('keeps only the variables of the CLI, and takes empty ones as unset', () => {
    expect(cliEnvironment({ TRAWL_API_KEY: 'k', TRAWL_BASE_URL: '', PATH: '/bin', HOME })).toEqual({ TRAWL_API_KEY: 'k', HOME });
  });
});
