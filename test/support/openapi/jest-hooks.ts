import { assertNoDrift, saveStats } from './validation-hook';

// Loaded by jest (setupFilesAfterEnv) for the e2e and faults projects: a test whose requests
// got an answer the OpenAPI document does not describe fails right after it ran; answers that
// arrive later (a stream still closing) fail the file's afterAll.
afterEach(() => assertNoDrift());

afterAll(() => {
  saveStats(expect.getState().testPath ?? 'unknown');
  assertNoDrift();
});
