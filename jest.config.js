// Jest runs the service's ESM TypeScript natively (NODE_OPTIONS=--experimental-vm-modules).
// Sources are compiled by SWC with decorator metadata, as in the build.
const swcEsm = {
  jsc: {
    parser: { syntax: 'typescript', decorators: true },
    transform: { legacyDecorator: true, decoratorMetadata: true, useDefineForClassFields: false },
    target: 'es2023',
    keepClassNames: true,
  },
  module: { type: 'es6' },
};

// Fastify's `inject` (light-my-request, CommonJS) requires `cookie` 2 and @fastify/static requires `content-disposition` 1, both ESM-only;
// Jest on Node 20 cannot require ESM, so these packages are compiled to CommonJS for Jest.
const esmOnlyRequiredFromCommonJs = ['cookie', 'content-disposition'];

export default {
  testEnvironment: 'node',
  rootDir: '.',
  roots: ['<rootDir>/src', '<rootDir>/test'],
  testMatch: ['**/*.spec.ts', '**/*.e2e-spec.ts'],
  extensionsToTreatAsEsm: ['.ts'],
  moduleNameMapper: { '^(\\.{1,2}/.*)\\.js$': '$1' },
  transform: {
    '^.+\\.ts$': ['@swc/jest', swcEsm],
    [`node_modules/(${esmOnlyRequiredFromCommonJs.join('|')})/.+\\.js$`]: [
      '@swc/jest',
      { jsc: { target: 'es2023' }, module: { type: 'commonjs' } },
    ],
  },
  transformIgnorePatterns: [`node_modules/(?!(${esmOnlyRequiredFromCommonJs.join('|')})/)`],
  globalSetup: '<rootDir>/test/support/global-setup.mjs',
  globalTeardown: '<rootDir>/test/support/global-teardown.mjs',
  testTimeout: 60000,
};
