import { spawn } from 'node:child_process';
import type { Server } from 'node:http';
import { mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import { join, resolve } from 'node:path';
import globalSetup from '../support/global-setup';
import globalTeardown from '../support/global-teardown';
import { takeDrifts } from '../support/openapi/validation-hook';
import { createTestApp } from '../support/test-app';
import { makeFixtures } from './fixtures';

const ROOT = resolve(__dirname, '..', '..');
const DATA = join(ROOT, '.data');

/**
 * `npm run test:contract`: Dredd against the read-only operations of the live document. Boots
 * the real AppModule in-process on a fresh database (the e2e suite's test PostgreSQL: embedded,
 * or DATABASE_URL when set) on a free port, writes its `/api/docs-json`, creates the fixtures,
 * then runs the Dredd CLI with test/contract/dredd.yml (document and URL replaced). Exits with
 * Dredd's status, or 1 when an answer also drifted from the document by the e2e validator.
 */
async function main(): Promise<number> {
  await globalSetup();
  try {
    const t = await createTestApp();
    try {
      const server = t.app.getHttpServer() as Server;
      await new Promise<void>((r) => server.listen(0, '127.0.0.1', r));
      const endpoint = `http://127.0.0.1:${(server.address() as { port: number }).port}`;
      mkdirSync(DATA, { recursive: true });
      const blueprint = join(DATA, 'openapi-contract.json');
      const doc = await t.http.get('/api/docs-json').expect(200);
      writeFileSync(blueprint, JSON.stringify(readOnly(doc.body as Document), null, 2));
      // dredd.yml with this run's document and URL (a JSON string is a YAML scalar).
      const configFile = join(DATA, 'dredd-contract.yml');
      const config = readFileSync(join(__dirname, 'dredd.yml'), 'utf8')
        .replace(/^blueprint: .*$/m, `blueprint: ${JSON.stringify(blueprint)}`)
        .replace(/^endpoint: .*$/m, `endpoint: ${JSON.stringify(endpoint)}`);
      writeFileSync(configFile, config);
      const fixtures = await makeFixtures(t);
      const status = await dredd(configFile, {
        CONTRACT_FIXTURES: JSON.stringify(fixtures),
        CONTRACT_DOCUMENT: blueprint,
      });
      const drifts = takeDrifts();
      for (const d of drifts) console.error(`drift: ${d.request}: ${d.problems.join('; ')}`);
      return status || (drifts.length ? 1 : 0);
    } finally {
      await t.close();
    }
  } finally {
    await globalTeardown();
  }
}

interface Document {
  paths: Record<string, Record<string, { responses?: Record<string, unknown> }>>;
}

/**
 * The document cut to its GET operations and their success answers: what the run sends. Dredd
 * parses the whole document first (a transaction per answer and media type: about 950, over a
 * minute), so the cut keeps the run short; the full document is linted by `lint:openapi`.
 */
function readOnly(doc: Document): Document {
  const paths: Document['paths'] = {};
  for (const [path, item] of Object.entries(doc.paths)) {
    if (!item.get) continue;
    const responses = Object.entries(item.get.responses ?? {}).filter(([s]) => /^2\d\d$/.test(s));
    paths[path] = {
      ...(item.parameters ? { parameters: item.parameters } : {}),
      get: { ...item.get, responses: Object.fromEntries(responses) },
    };
  }
  return { ...doc, paths };
}

/** Runs the Dredd CLI with `config`; resolves with its exit status. */
function dredd(config: string, env: Record<string, string>): Promise<number> {
  const child = spawn(
    process.execPath,
    [join(ROOT, 'node_modules/dredd/bin/dredd'), '--config', config],
    {
      cwd: ROOT,
      env: { ...process.env, ...env },
      stdio: 'inherit',
    },
  );
  return new Promise((done) => child.on('exit', (code) => done(code ?? 1)));
}

main().then(
  (status) => process.exit(status),
  (err: unknown) => {
    console.error(err);
    process.exit(1);
  },
);
