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

// `npm run test:fast` (TEST_SCOPE=fast): the unit and module tests, in process, without the
// system suites: those that start service processes, pack or install packages, drive a
// browser or fuzz the whole document, and those that run several replicas, crash, stop
// the database or wait out timeouts and retry schedules. The full suite (`npm test`, CI)
// runs them all.
const systemSuites = [
  '<rootDir>/test/(sdk|quickstart|browser|operations|contract)/',
  '<rootDir>/test/foundation/(cli|start|production-install)\\.e2e-spec\\.ts$',
  '-(replicas|crash|crash-writes|outage|timeouts|delivery|fairness)\\.e2e-spec\\.ts$',
];

export default {
  testEnvironment: 'node',
  testPathIgnorePatterns: ['/node_modules/', ...(process.env.TEST_SCOPE === 'fast' ? systemSuites : [])],
  rootDir: '.',
  roots: ['<rootDir>/src', '<rootDir>/test'],
  testMatch: ['**/*.spec.ts', '**/*.e2e-spec.ts'],
  extensionsToTreatAsEsm: ['.ts'],
  moduleNameMapper: { '^(\\.{1,2}/.*)\\.js$': '$1' },
  transform: {
    '^.+\\.ts$': ['@swc/jest', swcEsm],
    [`node_modules/(${esmOnlyRequiredFromCommonJs.join('|')})/.+\\.js$`]: ['@swc/jest', { jsc: { target: 'es2023' }, module: { type: 'commonjs' } }],
  },
  transformIgnorePatterns: [`node_modules/(?!(${esmOnlyRequiredFromCommonJs.join('|')})/)`],
  globalSetup: '<rootDir>/test/support/global-setup.mjs',
  globalTeardown: '<rootDir>/test/support/global-teardown.mjs',
  testTimeout: 60000,
};
