import { existsSync, readFileSync } from 'node:fs';
import { dirname, join } from 'node:path';

/** The name in the repository's package.json, which holds the version of the build. */
const PACKAGE_NAME = 'trawl';

/**
 * The `version` of Trawl's package.json, found upwards from this file: the same from the sources
 * (tests), from `dist/` and from the image (`/app/package.json` above `/app/dist`). `0.0.0` when
 * none is found (an unusual layout), rather than failing the boot over a document field.
 */
export function buildVersion(from: string = __dirname): string {
  for (let dir = from; ; dir = dirname(dir)) {
    const candidate = join(dir, 'package.json');
    if (existsSync(candidate)) {
      const manifest = JSON.parse(readFileSync(candidate, 'utf8')) as { name?: unknown; version?: unknown };
      if (manifest.name === PACKAGE_NAME && typeof manifest.version === 'string') return manifest.version;
    }
    if (dirname(dir) === dir) return '0.0.0';
  }
}
