import { execFileSync } from 'node:child_process';
import { readdirSync, readFileSync } from 'node:fs';
import { join, resolve } from 'node:path';

const ROOT = resolve(__dirname, '..', '..');
const PACKAGE = join(ROOT, 'dist', 'packages', 'sdk');

function filesUnder(dir: string): string[] {
  return readdirSync(dir, { withFileTypes: true }).flatMap((entry) =>
    entry.isDirectory() ? filesUnder(join(dir, entry.name)) : [join(dir, entry.name)],
  );
}

function node(args: string[]): string {
  return execFileSync(process.execPath, args, { cwd: PACKAGE, encoding: 'utf8' });
}

// What `npm publish dist/packages/sdk` would ship, loaded as users load it.
describe('the SDK package', () => {
  beforeAll(() => {
    execFileSync(process.execPath, [join(ROOT, 'libs', 'sdk', 'scripts', 'build-package.js')], { stdio: 'pipe' });
  }, 120_000);

  it('loads with require and with import, with one copy of each class', () => {
    const cjs = JSON.parse(node(['-e', `const sdk = require('./'); console.log(JSON.stringify(Object.keys(sdk).sort()))`])) as string[];
    expect(cjs).toEqual(expect.arrayContaining(['TrawlClient', 'TrawlApiError', 'verifyWebhook', 'proxyModeUrl']));
    const esm = node([
      '--input-type=module',
      '-e',
      `import { TrawlClient, TrawlApiError } from '${PACKAGE}/esm/index.mjs'; import { createRequire } from 'node:module';` +
        `const cjs = createRequire(import.meta.url)('${PACKAGE}/cjs/index.js'); console.log(TrawlClient === cjs.TrawlClient && TrawlApiError === cjs.TrawlApiError);`,
    ]);
    expect(esm.trim()).toBe('true');
  });

  it('needs nothing of the repository at run time: no dependencies, only its own files and Node built-ins', () => {
    const manifest = JSON.parse(readFileSync(join(PACKAGE, 'package.json'), 'utf8')) as Record<string, unknown>;
    expect(manifest.dependencies).toBeUndefined();
    const required = filesUnder(PACKAGE)
      .filter((file) => /\.(m?js)$/.test(file))
      .flatMap((file) => [...readFileSync(file, 'utf8').matchAll(/(?:require\(|from )["']([^"']+)["']/g)].map((match) => match[1]));
    expect(required.filter((specifier) => !specifier.startsWith('.') && !specifier.startsWith('node:'))).toEqual([]);
  });

  it('ships declarations for both entries', () => {
    const files = filesUnder(PACKAGE).map((file) => file.slice(PACKAGE.length + 1));
    expect(files).toEqual(
      expect.arrayContaining(['cjs/index.d.ts', 'esm/index.d.mts', 'cjs/generated/api-types.d.ts', 'package.json', 'README.md']),
    );
  });
});
