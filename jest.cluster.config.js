// `npm run test:cluster`: two service instances (child processes) against one embedded
// PostgreSQL, hit concurrently (test/cluster). Separate from `npm test`: it starts its own
// servers and takes longer.
module.exports = {
  displayName: 'cluster',
  testEnvironment: 'node',
  roots: ['<rootDir>/test/cluster'],
  testMatch: ['**/*.cluster-spec.ts'],
  transform: { '^.+\\.ts$': ['ts-jest', { diagnostics: false }] },
  globalSetup: '<rootDir>/test/cluster/global-setup.ts',
  globalTeardown: '<rootDir>/test/cluster/global-teardown.ts',
  testTimeout: 120000,
};
