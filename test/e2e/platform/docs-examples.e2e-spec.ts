import { spawn } from 'node:child_process';
import { readFileSync } from 'node:fs';
import { mkdir, rm, writeFile } from 'node:fs/promises';
import type { AddressInfo } from 'node:net';
import { join, resolve } from 'node:path';
import { signUp, verifyFromMailFile } from '../../support/accounts';
import { docSteps, runSteps, sectionBlocks } from '../../support/doc-blocks';
import { startProviders, type Providers } from '../../support/providers';
import { createTestApp, type TestApp } from '../../support/test-app';

const ROOT = resolve(__dirname, '..', '..', '..');
const WORK = join(ROOT, '.data', `docs-examples-${process.pid}`);
const MARKDOWN = readFileSync(join(ROOT, 'docs', 'api-keys.md'), 'utf8');

/** Each example starts a Node process that loads its SDKs: a few seconds on a busy machine. */
jest.setTimeout(120_000);

/** The fenced blocks of `lang` in the whole of `markdown`, in order. */
const allBlocks = (markdown: string, lang: string) =>
  [...markdown.matchAll(new RegExp('^```' + lang + '\\n([\\s\\S]*?)^```', 'gm'))].map((m) => m[1]);

/**
 * docs/api-keys.md as a newcomer runs it against the local model (the provider servers with
 * `auto` on, as `npm run mock:openai` starts them): the curl blocks of "Try it" through bash,
 * and every TypeScript example through Node (types stripped), with `localhost:3000` changed to
 * the app's port and `KEY` the key the first block made. An example without imports, or starting
 * `// continues`, uses the variables of the one before it, so it runs after it in one file.
 */
describe('docs/api-keys.md examples against the local model', () => {
  let t: TestApp;
  let p: Providers;
  let origin: string;
  const env: Record<string, string> = {};
  const rewrite = (text: string) =>
    text.replace(/localhost:3000/g, origin.replace(/^http:\/\//, ''));

  beforeAll(async () => {
    p = await startProviders();
    for (const s of [p.openai, p.anthropic, p.gemini]) s.auto = true;
    t = await createTestApp(p.env);
    const server = t.app.getHttpServer();
    await new Promise<void>((done) => server.listen(0, '127.0.0.1', done));
    origin = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
    await signUp(t, 'ada@example.com');
    await verifyFromMailFile(t, 'ada@example.com');
    await mkdir(WORK, { recursive: true });
  });

  afterAll(async () => {
    await t?.close();
    await p?.stop();
    await rm(WORK, { recursive: true, force: true });
  });

  it('signs in, makes a key and calls /v1 with curl (the first block of "Try it")', async () => {
    const [first] = sectionBlocks(MARKDOWN, 'Keys, curl and the SDKs');
    const steps = [...docSteps(first), { command: 'printf "%s" "$KEY"', shown: [] }];
    const outputs = await runSteps(steps, {}, rewrite);
    env.KEY = outputs.at(-1)!;
    expect(env.KEY).toMatch(/^sk-/);
    const answer = JSON.parse(outputs.at(-2)!);
    expect(answer).toMatchObject({
      object: 'chat.completion',
      choices: [{ message: { content: 'Hello from the test model.' } }],
    });
    expect(answer.cost).toBeGreaterThan(0);
  });

  const examples = (): { name: string; code: string }[] => {
    const blocks = allBlocks(MARKDOWN, 'ts');
    return blocks.map((code, i) => {
      const continues = !/^import /m.test(code) || code.startsWith('// continues');
      const own = continues ? `${blocks[i - 1]}\n${code}` : code;
      return {
        name: `example ${i + 1}: ${code.split('\n').find((l) => l && !l.startsWith('import'))}`,
        code: own,
      };
    });
  };

  it.each(examples())('$name', async ({ code }) => {
    expect(env.KEY).toBeDefined();
    const file = join(WORK, `example-${Math.random().toString(36).slice(2)}.mts`);
    await writeFile(file, rewrite(code));
    const { status, output } = await runNode(file, { KEY: env.KEY });
    if (status !== 0) throw new Error(`exited ${status}:\n${output}\n--- example:\n${code}`);
  });

  it('shows the charges and revokes the key (the last curl block of "Try it")', async () => {
    const blocks = sectionBlocks(MARKDOWN, 'Keys, curl and the SDKs');
    const last = blocks.at(-1)!;
    expect(last).toContain('/api/credits/transactions?keyId=<id>');
    const [login] = docSteps(blocks[0]);
    // `<id>`: the id of the key the examples used (its prefix starts the secret).
    const id = `$(curl -s localhost:3000/api/keys -H "authorization: Bearer $TOKEN" | jq -r --arg k "$KEY" '.keys[] | select(.prefix as $p | $k | startswith($p)) | .id')`;
    const steps = [login, ...docSteps(last.replace(/<id>/g, id))];
    const [, transactions, revoked] = await runSteps(steps, { KEY: env.KEY }, rewrite);
    expect(JSON.parse(transactions).data[0]).toMatchObject({ type: 'CONSUMPTION' });
    expect(JSON.parse(revoked)).toMatchObject({ revokedAt: expect.any(String) });
  });
});

/** Runs `file` with this Node (types stripped), `env` added; its exit status and all output. */
function runNode(file: string, env: Record<string, string>) {
  return new Promise<{ status: number | null; output: string }>((done) => {
    const child = spawn(process.execPath, ['--no-warnings', file], {
      cwd: ROOT,
      env: { ...process.env, ...env },
      stdio: ['ignore', 'pipe', 'pipe'],
    });
    let output = '';
    child.stdout.on('data', (d: Buffer) => (output += d.toString()));
    child.stderr.on('data', (d: Buffer) => (output += d.toString()));
    child.on('exit', (status) => done({ status, output }));
  });
}
