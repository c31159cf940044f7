import { execFile } from 'node:child_process';
import type { Server } from 'node:http';
import { promisify } from 'node:util';
import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { join, resolve } from 'node:path';
import * as openapiFetch from 'openapi-fetch';
import ts from 'typescript';
import { createTestApp, type TestApp } from '../../support/test-app';

const ROOT = resolve(__dirname, '..', '..', '..');
const execFileAsync = promisify(execFile);

/**
 * A client written against the generated types: signs up, creates and lists chats, reads the
 * credits, invites to a team leaving out `role` (a request field with a default, so optional),
 * using the typed fields of each answer. Compiled strictly, then run as written.
 */
const SAMPLE = `
import createClient from 'openapi-fetch';
import type { paths } from './schema';

export async function run(baseUrl: string) {
  const client = createClient<paths>({ baseUrl });
  const signup = await client.POST('/api/auth/signup', {
    body: { email: 'typed-client@example.com', password: 'correct horse battery', name: 'Typed' },
  });
  if (!signup.data) throw new Error('sign-up failed: ' + signup.response.status);
  const userId: string = signup.data.user.id;
  const emailVerified: boolean = signup.data.user.emailVerified;
  const headers = { Authorization: 'Bearer ' + signup.data.accessToken };

  const created = await client.POST('/api/chats', { headers, body: { title: 'Typed chat' } });
  if (!created.data) throw new Error('create failed: ' + created.error?.code);
  const chatId: string = created.data.data.id;

  const chats = await client.GET('/api/chats', { headers, params: { query: { limit: 10 } } });
  if (!chats.data) throw new Error('list failed: ' + chats.error?.code);
  const titles: string[] = chats.data.data.map((c) => c.title);
  const nextCursor: string | null = chats.data.nextCursor;

  const credits = await client.GET('/api/credits', { headers });
  if (!credits.data) throw new Error('credits failed: ' + credits.error?.code);
  const balance: number = credits.data.balance;
  const plan: 'FREE' | 'BASIC' | 'PRO' = credits.data.plan;

  const team = await client.POST('/api/teams', { headers, body: { name: 'Typed team' } });
  if (!team.data) throw new Error('team failed: ' + team.error?.code);
  const invited = await client.POST('/api/teams/{id}/invitations', {
    headers,
    params: { path: { id: team.data.data.id } },
    body: { email: 'invitee@example.com' },
  });
  if (!invited.data) throw new Error('invitation failed: ' + invited.error?.code);
  const invitedRole: 'OWNER' | 'ADMIN' | 'MEMBER' = invited.data.data.role;

  const anonymous = await client.GET('/api/credits');
  const refusal: string | undefined = anonymous.error?.code;
  return { userId, emailVerified, chatId, titles, nextCursor, balance, plan, invitedRole, refusal };
}
`;

/** Uses a field the answer does not have: must not compile if the types are real. */
const WRONG = `
import createClient from 'openapi-fetch';
import type { paths } from './schema';

export async function wrong() {
  const credits = await createClient<paths>({ baseUrl: '' }).GET('/api/credits');
  const balance: string = credits.data!.balance;
  return credits.data!.balanceInDollars + balance;
}
`;

/** Strict, no emit; resolution as a bundler does, so `openapi-fetch` resolves by its exports. */
function diagnostics(file: string): string[] {
  const program = ts.createProgram([file], {
    strict: true,
    noEmit: true,
    target: ts.ScriptTarget.ES2022,
    module: ts.ModuleKind.ESNext,
    moduleResolution: ts.ModuleResolutionKind.Bundler,
    lib: ['lib.es2022.d.ts', 'lib.dom.d.ts'],
    types: [],
    skipLibCheck: false,
  });
  return ts
    .getPreEmitDiagnostics(program)
    .map((d) => ts.flattenDiagnosticMessageText(d.messageText, '\n'));
}

describe('a typed client generated from the live OpenAPI document', () => {
  let t: TestApp;
  let dir: string;
  let base: string;

  beforeAll(async () => {
    t = await createTestApp();
    const server = t.app.getHttpServer() as Server;
    await new Promise<void>((r) => server.listen(0, '127.0.0.1', r));
    base = `http://127.0.0.1:${(server.address() as { port: number }).port}`;
    // Inside the repository, so the sample resolves openapi-fetch from node_modules.
    mkdirSync(join(ROOT, '.data'), { recursive: true });
    dir = mkdtempSync(join(ROOT, '.data', 'openapi-client-'));
    const doc = (await t.http.get('/api/docs-json').expect(200)).body as object;
    writeFileSync(join(dir, 'openapi.json'), JSON.stringify(doc));
    // openapi-typescript's own CLI in a child process (its dependencies are ES modules, which
    // jest's CommonJS runtime cannot load), with its default options: what a user runs first.
    await execFileAsync(process.execPath, [
      join(ROOT, 'node_modules', 'openapi-typescript', 'bin', 'cli.js'),
      join(dir, 'openapi.json'),
      '--output',
      join(dir, 'schema.d.ts'),
    ]);
    writeFileSync(join(dir, 'sample.ts'), SAMPLE);
    writeFileSync(join(dir, 'wrong.ts'), WRONG);
  });

  afterAll(async () => {
    rmSync(dir, { recursive: true, force: true });
    await t.close();
  });

  it('compiles a sample that signs up, lists chats and reads credits, with zero diagnostics', () => {
    expect(diagnostics(join(dir, 'sample.ts'))).toEqual([]);
  });

  it('types the answers precisely: a wrong field or type does not compile', () => {
    const found = diagnostics(join(dir, 'wrong.ts'));
    expect(found).toEqual(
      expect.arrayContaining([
        expect.stringMatching(/Type 'number' is not assignable to type 'string'/),
        expect.stringMatching(/Property 'balanceInDollars' does not exist/),
      ]),
    );
  });

  it('runs the compiled sample against the app and gets what its types promise', async () => {
    const { outputText } = ts.transpileModule(SAMPLE, {
      compilerOptions: {
        module: ts.ModuleKind.CommonJS,
        target: ts.ScriptTarget.ES2022,
        esModuleInterop: true,
      },
    });
    const mod = { exports: {} as { run?: (baseUrl: string) => Promise<Record<string, unknown>> } };
    new Function('require', 'module', 'exports', outputText)(
      (id: string) => {
        if (id !== 'openapi-fetch')
          throw new Error(`the sample imports only openapi-fetch, not ${id}`);
        return openapiFetch;
      },
      mod,
      mod.exports,
    );
    const result = await mod.exports.run!(base);
    expect(result).toEqual({
      userId: expect.stringMatching(/^[0-9a-f-]{36}$/),
      // The sign-up bonus waits for the mailed verification link.
      emailVerified: false,
      chatId: expect.stringMatching(/^[0-9a-f-]{36}$/),
      titles: ['Typed chat'],
      nextCursor: null,
      balance: 0,
      plan: 'FREE',
      // The default the document states for a left-out `role`.
      invitedRole: 'MEMBER',
      refusal: 'UNAUTHORIZED',
    });
  });
});
