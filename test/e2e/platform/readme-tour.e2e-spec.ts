import { type ChildProcess, spawn } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import { readFileSync } from 'node:fs';
import { resolve } from 'node:path';
import { docSteps, matchesShown, runSteps, sectionBlocks } from '../../support/doc-blocks';
import {
  BOOT_MS,
  freePort,
  spawnApp,
  type SpawnedApp,
  waitForStatus,
} from '../../support/spawn-app';
import { adminQuery, databaseUrl, TEST_DB_PREFIX, templateDb } from '../../support/test-db';

const ROOT = resolve(__dirname, '..', '..', '..');
const README = readFileSync(resolve(ROOT, 'README.md'), 'utf8');

// One boot of the service, plus the tour's own commands (ts-node starts for the mail command).
jest.setTimeout(2 * BOOT_MS);

/** The mock's default ports as README writes them. */
const MOCK_PORTS = { MOCK_OPENAI_PORT: 4010, MOCK_ANTHROPIC_PORT: 4011, MOCK_GEMINI_PORT: 4012 };

/**
 * README's "Five-minute tour", run as written: its first block starts the local model (the
 * command as README gives it) and the service (the variables README gives `npm start`, on the
 * run's build), its second block runs in one bash, and every `# →` answer README shows must be
 * what the command printed. Only ports change: the test's free ones for 3000, 4010, 4011, 4012.
 */
describe('README five-minute tour', () => {
  const [startBlock, tourBlock] = sectionBlocks(README, 'Five-minute tour');
  const dbName = `${TEST_DB_PREFIX}tour_${randomBytes(4).toString('hex')}`;
  let mock: ChildProcess | undefined;
  let mockOutput = '';
  let app: SpawnedApp | undefined;
  const ports: Record<string, number> = {};
  /** README's port → this run's. */
  const portFor = new Map<string, number>();

  beforeAll(async () => {
    for (const [name, port] of Object.entries(MOCK_PORTS)) {
      ports[name] = await freePort();
      portFor.set(String(port), ports[name]);
    }
    portFor.set('3000', await freePort());
    await adminQuery(`CREATE DATABASE "${dbName}" TEMPLATE "${templateDb()}"`);
  });

  afterAll(async () => {
    if (app && app.child.exitCode === null) {
      app.child.kill('SIGTERM');
      await app.exited;
    }
    // The mock runs as its own process group (npm, sh, node): end all of it.
    if (mock?.pid && mock.exitCode === null) process.kill(-mock.pid, 'SIGTERM');
    await adminQuery(`DROP DATABASE IF EXISTS "${dbName}" WITH (FORCE)`);
  });

  const rewritePorts = (text: string) =>
    text.replace(/\b(?:localhost|127\.0\.0\.1):(3000|4010|4011|4012)\b/g, (hostPort, port) =>
      hostPort.replace(port, String(portFor.get(port))),
    );

  it('starts the local model and the service as README says', async () => {
    const [mockStep, startStep] = docSteps(startBlock);
    expect(mockStep.command).toMatch(/^npm run mock:openai\b/);
    mock = spawn('bash', ['-c', mockStep.command], {
      cwd: ROOT,
      env: {
        ...process.env,
        ...Object.fromEntries(Object.entries(ports).map(([k, v]) => [k, String(v)])),
      },
      stdio: ['ignore', 'pipe', 'pipe'],
      detached: true,
    });
    mock.stdout!.on('data', (d: Buffer) => (mockOutput += d.toString()));
    mock.stderr!.on('data', (d: Buffer) => (mockOutput += d.toString()));
    await new Promise<void>((ready, fail) => {
      mock!.stdout!.on('data', () => /npm start/.test(mockOutput) && ready());
      mock!.on('exit', (code) => fail(new Error(`mock exited ${code}: ${mockOutput}`)));
    });

    // Terminal 2: the variables README puts before `npm start`, which the mock also prints.
    expect(startStep.command).toMatch(/npm start\b/);
    const assignments = [...startStep.command.matchAll(/\b([A-Z][A-Z0-9_]*)=(\S+)/g)];
    const env = Object.fromEntries(assignments.map(([, k, v]) => [k, rewritePorts(v)]));
    expect(Object.keys(env)).toEqual(expect.arrayContaining(['OPENAI_API_KEY', 'OPENAI_BASE_URL']));
    for (const [k, v] of Object.entries(env)) expect(mockOutput).toContain(`${k}=${v}`);

    const port = portFor.get('3000')!;
    app = spawnApp({ ...env, PORT: String(port), DATABASE_URL: databaseUrl(dbName) });
    await waitForStatus(app, `http://127.0.0.1:${port}/health/ready`, 200);
  });

  it('runs the tour block and answers what README shows', async () => {
    expect(app).toBeDefined();
    const steps = docSteps(tourBlock);
    expect(steps.some((s) => s.command.includes('mail:verify'))).toBe(true);
    const outputs = await runSteps(steps, { MAIL_DIR: app!.mailDir }, rewritePorts);
    const compared = steps.flatMap((step, i) =>
      step.shown.map((shown) => ({ command: step.command, shown, output: outputs[i] })),
    );
    expect(compared.length).toBeGreaterThanOrEqual(8);
    for (const c of compared) {
      if (!matchesShown(c.output, c.shown)) {
        throw new Error(
          `README shows\n  ${c.shown}\nfor\n${c.command}\nbut it answered\n  ${c.output}`,
        );
      }
    }
  });
});
