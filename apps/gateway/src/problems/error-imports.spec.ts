import { readdirSync, readFileSync } from 'node:fs';
import { dirname, join, relative, resolve } from 'node:path';
import { preProcessFile } from 'typescript';

// The compiler checks that the catalog maps every code, but not which way the files import each
// other: `api-error.ts` once took its code type from the catalog, which imports every feature's
// errors, which import `api-error.ts`. This reads the imports (type-only ones included) instead.

const SRC = join(__dirname, '..');

function sourceFiles(dir: string): string[] {
  return readdirSync(dir, { withFileTypes: true }).flatMap((entry) => {
    const path = join(dir, entry.name);
    if (entry.isDirectory()) return sourceFiles(path);
    return entry.name.endsWith('.ts') && !/\.(spec|int-spec)\.ts$/.test(entry.name) ? [path] : [];
  });
}

/** The gateway's own files each file imports (relative specifiers; libs are outside the graph). */
function importGraph(files: string[]): Map<string, string[]> {
  const known = new Set(files);
  return new Map(
    files.map((file) => {
      const { importedFiles } = preProcessFile(readFileSync(file, 'utf8'), true, true);
      const targets = importedFiles
        .filter(({ fileName }) => fileName.startsWith('.'))
        .map(({ fileName }) => resolve(dirname(file), fileName))
        .map((base) => [`${base}.ts`, join(base, 'index.ts')].find((candidate) => known.has(candidate)))
        .filter((target): target is string => target !== undefined);
      return [file, targets];
    }),
  );
}

/** Files on an import cycle, one list per cycle found (Tarjan's strongly connected components). */
function cycles(graph: Map<string, string[]>): string[][] {
  let next = 0;
  const index = new Map<string, number>();
  const low = new Map<string, number>();
  const stack: string[] = [];
  const found: string[][] = [];
  const visit = (file: string): void => {
    index.set(file, next);
    low.set(file, next++);
    stack.push(file);
    for (const target of graph.get(file) ?? []) {
      if (!index.has(target)) {
        visit(target);
        low.set(file, Math.min(low.get(file)!, low.get(target)!));
      } else if (stack.includes(target)) {
        low.set(file, Math.min(low.get(file)!, index.get(target)!));
      }
    }
    if (low.get(file) !== index.get(file)) return;
    const component = stack.splice(stack.indexOf(file));
    if (component.length > 1 || graph.get(file)?.includes(file)) found.push(component);
  };
  for (const file of graph.keys()) if (!index.has(file)) visit(file);
  return found;
}

const isErrorModule = (file: string): boolean => file.includes('/problems/') || file.endsWith('.errors.ts');

describe('gateway error modules', () => {
  const graph = importGraph(sourceFiles(SRC));

  it('finds the catalog and the feature errors (the test reads the tree it checks)', () => {
    const errorModules = [...graph.keys()].filter(isErrorModule).map((file) => relative(SRC, file));
    expect(errorModules).toEqual(
      expect.arrayContaining(['problems/problem-catalog.ts', 'problems/api-error.ts', 'crawls/crawls.errors.ts']),
    );
  });

  it('import one way: no cycle runs through the problems folder or a *.errors.ts file', () => {
    const throughErrors = cycles(graph)
      .filter((cycle) => cycle.some(isErrorModule))
      .map((cycle) => cycle.map((file) => relative(SRC, file)).sort());
    expect(throughErrors).toEqual([]);
  });

  it('leave api-error.ts importing no gateway file: features add their codes to it, not it to them', () => {
    expect(graph.get(join(SRC, 'problems', 'api-error.ts'))).toEqual([]);
  });
});
