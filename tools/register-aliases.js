// Resolves the `@trawl/<lib>` path aliases of tsconfig.json (and `@trawl/<lib>/<entry>`, a file of the
// lib's src/, e.g. `@trawl/service-kit/run-service`) for compiled code under dist/.
// tsc does not rewrite path aliases, and a runtime hook is smaller than a build step that does.
'use strict';
const Module = require('node:module');
const path = require('node:path');
const dist = path.resolve(__dirname, '..', 'dist', 'libs');
const original = Module._resolveFilename;
Module._resolveFilename = function resolveTrawlAlias(request, ...rest) {
  if (request.startsWith('@trawl/')) {
    const [lib, ...sub] = request.slice('@trawl/'.length).split('/');
    request = path.join(dist, lib, 'src', sub.length ? sub.join('/') : 'index.js');
  }
  return original.call(this, request, ...rest);
};
