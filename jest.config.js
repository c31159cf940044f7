// Unit tests (src and test/lint, *.spec.ts), module tests (test/module: the modules under test booted without
// HTTP, `bootModule`), e2e tests (test/e2e: the whole app over HTTP), both on real PostgreSQL with
// one database per file, and fault tests (test/faults: database down, crashes, provider faults,
// bad input).
const transform = { '^.+\\.ts$': ['ts-jest', { diagnostics: false }] };
// jest reads this file as CommonJS.
// eslint-disable-next-line @typescript-eslint/no-require-imports
const { groupingOn, groupProject } = require('./test/support/test-groups');

// A whole-suite run requires the spec files in groups that share one module registry (see
// test/support/test-groups.js); a run that names files runs them one by one.
const grouped = groupingOn();
const groupsOf = (name, roots, suffix, size) =>
  grouped ? groupProject(__dirname, { name, roots, suffix, size }) : {};

module.exports = {
  projects: [
    {
      displayName: 'unit',
      testEnvironment: 'node',
      roots: ['<rootDir>/src', '<rootDir>/test/lint'],
      testMatch: ['**/*.spec.ts'],
      transform,
      ...groupsOf('unit', ['src', 'test/lint'], '.spec.ts', 20),
    },
    {
      displayName: 'module',
      testEnvironment: 'node',
      roots: ['<rootDir>/test/module'],
      testMatch: ['**/*.module-spec.ts'],
      transform,
      // Not grouped: each file boots its own set of modules, and the job queues a module declares
      // at import stay declared for the rest of a shared registry (JobsService refuses to start
      // with a declared queue that has no handler).
      globalSetup: '<rootDir>/test/support/global-setup.ts',
      globalTeardown: '<rootDir>/test/support/global-teardown.ts',
    },
    {
      displayName: 'e2e',
      testEnvironment: 'node',
      roots: ['<rootDir>/test'],
      testMatch: ['**/*.e2e-spec.ts'],
      transform,
      ...groupsOf('e2e', ['test'], '.e2e-spec.ts', 8),
      globalSetup: '<rootDir>/test/support/global-setup.ts',
      globalTeardown: '<rootDir>/test/support/global-teardown.ts',
      setupFilesAfterEnv: ['<rootDir>/test/support/openapi/jest-hooks.ts'],
    },
    {
      displayName: 'faults',
      testEnvironment: 'node',
      roots: ['<rootDir>/test/faults'],
      testMatch: ['**/*.fault-spec.ts'],
      transform,
      ...groupsOf('faults', ['test/faults'], '.fault-spec.ts', 4),
      globalSetup: '<rootDir>/test/support/global-setup.ts',
      globalTeardown: '<rootDir>/test/support/global-teardown.ts',
      setupFilesAfterEnv: ['<rootDir>/test/support/openapi/jest-hooks.ts'],
    },
  ],
  // A hang detector, not a budget: every wait inside a test is bounded by events and counts, and
  // booting an app (a hook) on a shared machine whose cores are saturated took over a minute.
  testTimeout: 300_000,
  // Two files at a time even on 2 cores (jest's default there is one): an e2e file mostly waits on
  // PostgreSQL and its local upstreams, so two workers share the cores instead of idling them.
  maxWorkers: 2,
  // Test files run in a worker process that is replaced once it holds more than this after a
  // file: each e2e file boots a whole app, and one long-lived process (jest's in-band run on a
  // 2-core machine) kept every file's module registry until its heap filled and the run stalled.
  workerIdleMemoryLimit: '1536MB',
};
