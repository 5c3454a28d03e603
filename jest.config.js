// Three projects: unit (pure logic, beside the code), integration (real Postgres and NATS),
// e2e (services started as processes, public API only).
'use strict';
const swc = [
  '@swc/jest',
  {
    jsc: {
      parser: { syntax: 'typescript', decorators: true },
      transform: { legacyDecorator: true, decoratorMetadata: true },
      target: 'es2022',
    },
    module: { type: 'commonjs' },
  },
];
const common = {
  testEnvironment: 'node',
  transform: { '^.+\\.(t|j)s$': swc },
  // NestJS 12, htmlparser2 12 and linkedom's CSS selector packages ship ES modules only; jest's loader needs them transformed to CommonJS.
  transformIgnorePatterns: [
    '/node_modules/(?!(@nestjs|htmlparser2|domhandler|domutils|entities|dom-serializer|domelementtype|linkedom|css-select|css-what|nth-check|boolbase|cssomnom)/)',
  ],
  // `@trawl/<lib>` is the lib's index; `@trawl/<lib>/<entry>` one of its files, or a folder's index
  // (`@trawl/contracts/http`); tsconfig.json lists each.
  moduleNameMapper: {
    '^@trawl/contracts/http$': '<rootDir>/libs/contracts/src/http/index.ts',
    '^@trawl/([^/]+)$': '<rootDir>/libs/$1/src/index.ts',
    '^@trawl/([^/]+)/([^/]+)$': '<rootDir>/libs/$1/src/$2.ts',
  },
  rootDir: __dirname,
  // dist/packages/sdk is the built SDK package, named like libs/sdk's: jest's module map must not see it.
  modulePathIgnorePatterns: ['<rootDir>/dist/'],
};
module.exports = {
  projects: [
    { ...common, displayName: 'unit', testMatch: ['<rootDir>/{apps,libs,test}/**/*.spec.ts'] },
    {
      ...common,
      displayName: 'integration',
      testMatch: ['<rootDir>/{apps,libs,test}/**/*.int-spec.ts'],
      globalSetup: '<rootDir>/test/support/global-setup.ts',
      setupFilesAfterEnv: ['<rootDir>/test/support/slow-hooks.ts'],
    },
    {
      ...common,
      displayName: 'e2e',
      testMatch: ['<rootDir>/test/e2e/**/*.e2e-spec.ts'],
      globalSetup: '<rootDir>/test/support/global-setup.ts',
      setupFilesAfterEnv: ['<rootDir>/test/support/slow-hooks.ts'],
    },
  ],
};
