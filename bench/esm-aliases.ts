/**
 * Resolves `@trawl/<lib>` for dynamic `import()` too. tools/register-aliases.js patches only
 * `require`; `await import('@trawl/persistence')` (libs/testing's createMigratedDatabase, which
 * Platform calls) goes through the ESM loader and would fail outside jest. Registered by
 * crawl-bench.ts before the platform starts; harmless once no library imports an alias dynamically.
 */
import { register } from 'node:module';
import { join, resolve as resolvePath } from 'node:path';
import { pathToFileURL } from 'node:url';

const LIBS = resolvePath(__dirname, '..', 'libs');

interface ResolveContext {
  parentURL?: string;
}
type NextResolve = (specifier: string, context: ResolveContext) => Promise<{ url: string }>;

/** ESM resolve hook (runs on the loader thread). */
export async function resolve(specifier: string, context: ResolveContext, nextResolve: NextResolve): Promise<{ url: string; shortCircuit?: boolean }> {
  if (!specifier.startsWith('@trawl/')) return nextResolve(specifier, context);
  const [lib, ...sub] = specifier.slice('@trawl/'.length).split('/');
  const file = join(LIBS, lib, 'src', sub.length > 0 ? `${sub.join('/')}.js` : 'index.js');
  return { url: pathToFileURL(file).href, shortCircuit: true };
}

/** Installs {@link resolve} as an ESM loader hook of this process. */
export function registerEsmAliases(): void {
  register(pathToFileURL(__filename).href);
}
