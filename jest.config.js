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
  // Fastify's `inject` (light-my-request, CommonJS) requires the ESM-only `cookie` 2, and
  // @fastify/static `content-disposition`: Node 24 requires ESM from CommonJS, and Jest with
  // it, so they load as they are (on Node 20 they had to be compiled to CommonJS for Jest).
  transform: { '^.+\\.ts$': ['@swc/jest', swcEsm] },
  globalSetup: '<rootDir>/test/support/global-setup.mjs',
  globalTeardown: '<rootDir>/test/support/global-teardown.mjs',
  testTimeout: 60000,
};
