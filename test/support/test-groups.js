// Whole-suite runs load the service once per group of test files, not once per file.
//
// Jest gives every test file its own module registry, so each file imported the whole service
// and its libraries again: about 5 s of CPU per e2e file on 2 cores (nest, typeorm, the provider
// SDKs, 600 source files), most of the suite's fixed cost. A group file requires several spec
// files, each inside its own `describe` named by its path, so their hooks and tests keep their
// scope while the registry is shared. Runs that name files or patterns (`npm test -- <path>`,
// `--testPathPatterns`, `-t`) run the spec files themselves, as before.
//
// `TEST_GROUPS=0` turns grouping off, `TEST_GROUPS=1` forces it on.
//
// CommonJS, as jest.config.js that loads it.
/* eslint-disable @typescript-eslint/no-require-imports */
const {
  mkdirSync,
  readFileSync,
  readdirSync,
  rmSync,
  statSync,
  writeFileSync,
} = require('node:fs');
const { join, relative } = require('node:path');

/** Options of jest's CLI whose next argument is a value, not a path pattern. */
const VALUE_OPTIONS = new Set([
  '-c',
  '--config',
  '-t',
  '--testNamePattern',
  '-w',
  '--maxWorkers',
  '--shard',
  '--seed',
  '--outputFile',
  '--reporters',
  '--testTimeout',
]);

/** Project names listed after `--selectProjects` (variadic: every word up to the next option). */
function isProjectName(argv, index) {
  for (let i = index - 1; i >= 0; i--) {
    if (argv[i] === '--selectProjects' || argv[i] === '--ignoreProjects') return true;
    if (argv[i].startsWith('-')) return false;
  }
  return false;
}

/** True when the command line names tests (a path, a pattern, a test name): no grouping then. */
function namesTests(argv) {
  return argv.some((arg, i) => {
    if (/^(--testPathPatterns|--testNamePattern|-t|--findRelatedTests|--listTests)(=|$)/.test(arg))
      return true;
    if (arg.startsWith('-') || (i > 0 && VALUE_OPTIONS.has(argv[i - 1]))) return false;
    return !isProjectName(argv, i);
  });
}

/** Whether this run groups its files: whole-suite runs only, unless TEST_GROUPS says. */
function groupingOn(argv = process.argv.slice(2)) {
  if (process.env.TEST_GROUPS === '0') return false;
  if (process.env.TEST_GROUPS === '1') return true;
  return !namesTests(argv);
}

/** Every file under `dir` whose name ends with `suffix`, sorted, skipping node_modules. */
function findFiles(dir, suffix) {
  const found = [];
  for (const name of readdirSync(dir)) {
    if (name === 'node_modules' || name.startsWith('.')) continue;
    const path = join(dir, name);
    if (statSync(path).isDirectory()) found.push(...findFiles(path, suffix));
    else if (name.endsWith(suffix)) found.push(path);
  }
  return found.sort();
}

// The group's hang detector: a spec file's own `jest.setTimeout` would otherwise set the timeout
// of every file of its group (jest reads the last value set before the run starts).
const GROUP_TIMEOUT_MS = 600_000;

// Files that read their app's log run alone: the process's root logger (nestjs-pino) is built
// once, at the level of the first app that starts, and is kept for every later app.
const RUNS_ALONE = /\bLOG_LEVEL\b|captureStdoutLogs/;

/**
 * Each spec file of a group ends with process.env as the group found it (a file alone gets its
 * own copy from jest). Written into the group files as source, so it must stay self-contained.
 */
function restoreEnvAfterAll() {
  const env = { ...process.env };
  afterAll(() => {
    for (const key of Object.keys(process.env)) if (!(key in env)) delete process.env[key];
    Object.assign(process.env, env);
  });
}

/** The text of one group file: each spec file required inside a describe named by its path. */
function groupSource(rootDir, files) {
  const blocks = files.map((file) => {
    const name = JSON.stringify(relative(rootDir, file));
    return `describe(${name}, () => {\n  restoreEnvAfterAll();\n  require(${JSON.stringify(file)});\n});`;
  });
  return [
    '// Written by test/support/test-groups.js for this run; see there.',
    `const restoreEnvAfterAll = ${restoreEnvAfterAll.toString()};`,
    ...blocks,
    `jest.setTimeout(${GROUP_TIMEOUT_MS});`,
    '',
  ].join('\n');
}

/**
 * Writes the group files of one project under `<rootDir>/.data/test-groups/<name>/` and answers
 * the project's roots and testMatch for them. `roots` and `suffix` say which spec files belong to
 * the project; `size` is the number of files per group (jest runs groups on its workers, the
 * longest first, so groups are kept small enough to share the workers at the end of the run).
 */
function groupProject(rootDir, { name, roots, suffix, size }) {
  const dir = join(rootDir, '.data', 'test-groups', name);
  rmSync(dir, { recursive: true, force: true });
  mkdirSync(dir, { recursive: true });
  const all = roots.flatMap((root) => findFiles(join(rootDir, root), suffix));
  const alone = all.filter((file) => RUNS_ALONE.test(readFileSync(file, 'utf8')));
  const files = all.filter((file) => !alone.includes(file));
  const count = Math.max(1, Math.ceil(files.length / size));
  // Spread files round-robin so each group mixes folders (and their long and short files).
  const groups = [...Array(count)].map((_, g) => files.filter((_, i) => i % count === g));
  for (const [g, members] of [...groups, ...alone.map((file) => [file])].entries()) {
    const file = join(dir, `${name}-${String(g + 1).padStart(2, '0')}.group.js`);
    writeFileSync(file, groupSource(rootDir, members));
  }
  return { roots: [dir], testMatch: ['**/*.group.js'] };
}

module.exports = { groupingOn, groupProject, namesTests };
