// The layering allow-lists and the SQL rule of eslint.config.mjs, run through ESLint's Node API
// on small sources given the path they would have in the tree (nothing is written to disk).
import { ESLint, type Linter } from 'eslint';
import path from 'node:path';

const root = path.resolve(__dirname, '../..');
const LOCAL_RULES = ['local/module-imports', 'local/sql-in-sql-files'];

/** The messages of the project's own rules for `code` at `file` (relative to the root). */
async function lint(eslint: ESLint, file: string, code: string): Promise<Linter.LintMessage[]> {
  const [result] = await eslint.lintText(code, { filePath: path.join(root, file) });
  return result.messages.filter((m) => LOCAL_RULES.includes(m.ruleId ?? ''));
}

const rulesOf = (messages: Linter.LintMessage[]) => messages.map((m) => m.ruleId);

describe('the module allow-lists (local/module-imports)', () => {
  let eslint: ESLint;
  beforeAll(() => {
    eslint = new ESLint({ cwd: root });
  });

  it.each([
    [
      'jobs → tasks',
      'src/jobs/fixture.ts',
      "import { TasksService } from '../tasks/tasks.service';",
    ],
    [
      'models → billing',
      'src/models/fixture.ts',
      "import { Purchase } from '../billing/purchase.entity';",
    ],
    [
      'gateway → credits',
      'src/gateway/fixture.ts',
      "import { CreditsService } from '../credits/credits.service';",
    ],
    ['common → ai', 'src/common/auth/fixture.ts', "import { AiService } from '../../ai';"],
    [
      'plugins → chats (type only)',
      'src/plugins/mcp/fixture.ts',
      "import type { Chat } from '../../chats/chat.entity';",
    ],
    [
      'chats → uploads beyond its storage',
      'src/chats/fixture.ts',
      "import { UploadsService } from '../uploads/uploads.service';",
    ],
    [
      'jobs → tasks, re-exported',
      'src/jobs/fixture.ts',
      "export { TasksService } from '../tasks/tasks.service';",
    ],
    [
      'jobs → tasks, dynamic',
      'src/jobs/fixture.ts',
      "export const load = () => import('../tasks/tasks.service');",
    ],
    [
      'tasks → credits beyond its error codes',
      'src/tasks/fixture.ts',
      "import { CreditsService } from '../credits/credits.service';",
    ],
    [
      'common → the gateway error shapes',
      'src/common/errors/fixture.ts',
      "import { GATEWAY_ERROR_FORMATS } from '../../gateway/wire-error-formats';",
    ],
  ])('fails on %s', async (_edge, file, code) => {
    const messages = await lint(eslint, file, code);
    expect(rulesOf(messages)).toEqual(['local/module-imports']);
    expect(messages[0].message).toMatch(/may not import src\//);
  });

  it('fails on any import of a module that has no allow-list', async () => {
    const code = "import { Clock } from '../common/clock/clock';";
    const messages = await lint(eslint, 'src/newmodule/fixture.ts', code);
    expect(rulesOf(messages)).toEqual(['local/module-imports']);
    expect(messages[0].message).toMatch(/src\/newmodule has no allow-list/);
  });

  it.each([
    ['tasks → jobs', 'src/tasks/fixture.ts', "import { JobsService } from '../jobs/jobs.service';"],
    [
      'models → common, config',
      'src/models/fixture.ts',
      "import { AppError } from '../common/errors/app-error';\nimport type { AppConfig } from '../config/app.config';",
    ],
    [
      'gateway → models',
      'src/gateway/fixture.ts',
      "import { ModelCatalogue } from '../models/model-catalogue';",
    ],
    [
      'chats → the uploads storage',
      'src/chats/fixture.ts',
      "import { UploadStorageModule } from '../uploads/upload-storage.module';",
    ],
    [
      'credits → the User entity',
      'src/credits/fixture.ts',
      "import { User } from '../users/user.entity';",
    ],
    [
      'tasks → the credits error codes',
      'src/tasks/fixture.ts',
      "import { CreditsErrorCode } from '../credits/credits.errors';",
    ],
    [
      'the composition root → every module errors file',
      'src/app-errors.fixture.ts',
      "import { TEAMS_ERRORS } from './teams/teams.errors';",
    ],
    [
      'a file of its own module',
      'src/jobs/deep/fixture.ts',
      "import { JobsService } from '../jobs.service';",
    ],
    ['a package', 'src/jobs/fixture.ts', "import { PgBoss } from 'pg-boss';"],
    [
      'the composition root',
      'src/app.module.fixture.ts',
      "import { TasksModule } from './tasks/tasks.module';",
    ],
  ])('passes on %s', async (_edge, file, code) => {
    expect(await lint(eslint, file, code)).toEqual([]);
  });

  it('fails on an import of a file inside ai, and passes on ai/index.ts', async () => {
    const inner = "import { AiService } from '../ai/calls/ai.service';";
    const messages = await lint(eslint, 'src/gateway/fixture.ts', inner);
    expect(rulesOf(messages)).toEqual(['local/module-imports']);
    expect(messages[0].message).toMatch(/only through src\/ai\/index\.ts/);
    const face = "import { AiService } from '../ai';\nimport { AiModule } from '../ai/index';";
    expect(await lint(eslint, 'src/gateway/fixture.ts', face)).toEqual([]);
  });

  it('fails on config importing a feature module', async () => {
    const code = "import { uploadsConfig } from '../uploads/uploads.config';";
    const messages = await lint(eslint, 'src/config/fixture.ts', code);
    expect(rulesOf(messages)).toEqual(['local/module-imports']);
    expect(messages[0].message).toMatch(/src\/config may not import src\/uploads/);
  });
});

describe('SQL only in *.sql.ts files (local/sql-in-sql-files)', () => {
  let eslint: ESLint;
  beforeAll(() => {
    eslint = new ESLint({ cwd: root });
  });

  it.each([
    [
      'a SELECT template',
      'export const q = (id: string) => [`SELECT credits FROM users WHERE id = $1`, id];',
    ],
    ['an INSERT string', "export const q = 'INSERT INTO tags (name) VALUES ($1)';"],
    [
      'an UPDATE after a comment',
      'export const q = `\n  -- the balance\n  UPDATE users SET credits = 0`;',
    ],
    ['a WITH statement', 'export const q = `WITH held AS (SELECT 1) SELECT * FROM held`;'],
    ['a lower-case DELETE', "export const q = 'delete from chats where id = $1';"],
    ['a CREATE INDEX', "export const q = 'CREATE INDEX i ON chats (id)';"],
  ])('fails on %s in a service file', async (_what, code) => {
    const messages = await lint(eslint, 'src/users/fixture.service.ts', code);
    expect(rulesOf(messages)).toEqual(['local/sql-in-sql-files']);
  });

  const statement = 'export const Q = `SELECT credits FROM users WHERE id = $1`;';
  it.each([
    ['a *.sql.ts file', 'src/users/fixture.sql.ts', statement],
    ['a unit test', 'src/users/fixture.spec.ts', statement],
    ['a migration', 'migrations/1-Fixture.ts', statement],
    ['an e2e test', 'test/e2e/fixture.e2e-spec.ts', statement],
    [
      'words that are no statement',
      'src/users/fixture.ts',
      "export const w = ['DELETE', 'with plugins: x', 'Select a model', 'update the page'];",
    ],
    [
      'SQL in a comment',
      'src/users/fixture.ts',
      '/** Answers `SELECT 1`. */\nexport const ok = 1;',
    ],
  ])('passes on %s', async (_what, file, code) => {
    expect(await lint(eslint, file, code)).toEqual([]);
  });
});
