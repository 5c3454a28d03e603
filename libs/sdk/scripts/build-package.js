// Builds the publishable SDK into dist/packages/sdk: CommonJS with declarations (tsc), and an ES
// module entry that re-exports the CommonJS build, so both `import` and `require` get one copy of
// the client (no dual-package hazard: one TrawlApiError class, one instanceof). `npm publish
// dist/packages/sdk` publishes it.
'use strict';
const { execFileSync } = require('node:child_process');
const { copyFileSync, mkdirSync, rmSync, writeFileSync } = require('node:fs');
const path = require('node:path');

const sdk = path.resolve(__dirname, '..');
const out = path.resolve(sdk, '..', '..', 'dist', 'packages', 'sdk');
rmSync(out, { recursive: true, force: true });
execFileSync(process.execPath, [require.resolve('typescript/bin/tsc'), '-p', path.join(sdk, 'tsconfig.package.json')], {
  stdio: 'inherit',
});
const names = Object.keys(require(path.join(out, 'cjs', 'index.js')))
  .filter((name) => name !== 'default' && name !== '__esModule')
  .sort();
mkdirSync(path.join(out, 'esm'), { recursive: true });
writeFileSync(
  path.join(out, 'esm', 'index.mjs'),
  `import sdk from '../cjs/index.js';\nexport const { ${names.join(', ')} } = sdk;\nexport default sdk;\n`,
);
writeFileSync(path.join(out, 'esm', 'index.d.mts'), `export * from '../cjs/index.js';\n`);
copyFileSync(path.join(sdk, 'package.json'), path.join(out, 'package.json'));
copyFileSync(path.join(sdk, 'README.md'), path.join(out, 'README.md'));
process.stdout.write(`built ${out} (${names.length} exports)\n`);
