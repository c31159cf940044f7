// Preloaded (`node -r`) by the service children that tests spawn from the compiled build
// (test/support/app-build.ts): waits for the build's status file before main.js loads, so
// spawnApp returns at once while the first build of the run is still compiling. A failed build
// ends the child with tsc's output and exit code 1. Plain JavaScript: nothing transpiles it.
'use strict';
const { existsSync, readFileSync } = require('node:fs');
const { dirname, join } = require('node:path');

// main.js is <build>/src/main.js; cluster workers fork with the same arguments.
const dir = dirname(dirname(process.argv[1]));
const status = join(dir, '.status');
// Bounded by a count of looks (10 min at 100 ms): a build that never ends is a failure to
// report, not a hang.
const pause = new Int32Array(new SharedArrayBuffer(4));
for (let i = 0; i < 6000 && !existsSync(status); i++) Atomics.wait(pause, 0, 0, 100);
const code = existsSync(status) ? readFileSync(status, 'utf8').trim() : 'none (timed out)';
if (code !== '0') {
  const log = join(dir, '.log');
  console.error(`test build of the service failed (tsc exit ${code}) in ${dir}`);
  if (existsSync(log)) console.error(readFileSync(log, 'utf8'));
  process.exit(1);
}
