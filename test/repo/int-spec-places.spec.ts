import { readdirSync } from 'node:fs';
import { join } from 'node:path';

const ROOT = join(__dirname, '..', '..');
// Built output, installed packages and run artefacts hold no specs of ours.
const NOT_SOURCE = new Set(['node_modules', 'dist', 'coverage', 'test-output']);

/** Every `*.int-spec.ts` under `dir`, as a path from the repository's root with `/` separators. */
function intSpecs(dir = ''): string[] {
  return readdirSync(join(ROOT, dir), { withFileTypes: true }).flatMap((entry) => {
    const path = dir ? `${dir}/${entry.name}` : entry.name;
    if (entry.isDirectory()) return entry.name.startsWith('.') || NOT_SOURCE.has(entry.name) ? [] : intSpecs(path);
    return entry.isFile() && entry.name.endsWith('.int-spec.ts') ? [path] : [];
  });
}

// The rule in docs/architecture.md ("Where to change what"), one pattern per clause.
const PLACES = [
  /^apps\/[^/]+\/test\/[^/]+\.int-spec\.ts$/, // an app's: apps/<app>/test/, not in its support/
  /^libs\/[^/]+\/src\/.+\.int-spec\.ts$/, // a lib's: beside its code
  /^test\/(?!support\/|e2e\/)[^/]+\/.+\.int-spec\.ts$/, // no single app's or lib's: test/<area>/
];

describe('integration specs (one place each, by the rule in docs/architecture.md)', () => {
  it('sit in apps/<app>/test/, beside a lib’s code in libs/<lib>/src/, or under test/<area>/', () => {
    const specs = intSpecs();
    expect(specs.length).toBeGreaterThan(0);
    expect(specs.filter((path) => !PLACES.some((place) => place.test(path)))).toEqual([]);
  });
});
