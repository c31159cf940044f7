// @ts-check
import eslint from '@eslint/js';
import eslintPluginPrettierRecommended from 'eslint-plugin-prettier/recommended';
import globals from 'globals';
import tseslint from 'typescript-eslint';
import local from './.ci/eslint/plugin.mjs';

// Layering (docs/architecture.md, "Layering, enforced by the linter"): each module under `src/`
// states which other modules it MAY import; an import of any other module fails `npm run lint`.
// A new module adds its line here. Entries: a module (`'chats'`), one file or folder of a module
// (`'users/user.entity'`), or `'<module>/**'` (any file, past the module's face); a top-level file
// of src/ is a module named after it (`'tracing'`). Type-only imports count like any other.

/** Infrastructure every module may import: helpers and errors, validated configuration, SQL helpers. */
const BASE = ['common', 'config', 'database'];

/** What each module may import besides BASE. Dependencies point down: no entry points up. */
const MAY_IMPORT = {
  // Infrastructure and operations: no feature module.
  common: ['i18n/locale', 'users/user.entity'], // the locale resolver; the User entity and Role
  config: [],
  database: [],
  i18n: [],
  jobs: [],
  audit: [],
  lifecycle: [],
  telemetry: ['tracing'],
  metrics: ['jobs'], // the database gauges read the queue's schema name
  runtime: ['metrics'],
  mail: ['jobs', 'i18n', 'metrics'],
  health: [],
  // The model catalogue and the call's vocabulary, below every module that names a model.
  models: [],
  // Feature modules. `users/user.entity` is a foreign key or a `Role`, never a service call; a
  // `<module>/<module>.errors` entry is that module's error codes, a definition, never a call.
  users: ['credits', 'uploads', 'models', 'audit', 'i18n'],
  credits: ['users/user.entity', 'users/users.errors', 'models', 'jobs', 'metrics', 'telemetry'],
  teams: ['users/user.entity', 'audit'],
  pools: ['credits', 'teams'], // a team's pool: the ledger of credits, the roles of teams
  chats: [
    'teams',
    'models',
    'users/user.entity',
    'uploads/upload-storage.module', // signed links only: uploads imports chats, not the reverse
    'uploads/upload-links',
    'uploads/upload.entity',
  ],
  uploads: ['chats', 'users/user.entity'],
  tags: ['chats', 'users/user.entity'],
  bookmarks: ['chats', 'teams', 'users/user.entity'],
  shares: ['chats'],
  keys: ['users/user.entity', 'users/users.errors', 'teams', 'audit', 'i18n'], // teams: who may make a team's key
  auth: ['users', 'keys', 'credits', 'referrals', 'mail', 'jobs', 'audit', 'i18n'], // keys: a credential change revokes the user's API keys
  social: ['auth', 'users', 'referrals', 'audit', 'i18n'],
  'auth-google': ['social'],
  'auth-github': ['social'],
  billing: ['users', 'teams', 'credits/sql', 'audit', 'i18n'], // credits/sql reads RETURNING rows, writes nothing
  referrals: ['credits', 'users', 'i18n'],
  redemption: ['credits', 'audit'], // grants through CreditsService; admin actions and redemptions audited
  // Credit packs, Checkout, the customer portal and a plan's included credits; grants through credits.
  wallet: ['billing', 'credits', 'teams', 'users', 'mail', 'audit', 'i18n'],
  webhooks: ['billing', 'credits', 'users', 'referrals', 'wallet', 'audit', 'metrics', 'telemetry'],
  pages: ['billing', 'auth'],
  plugins: ['models', 'audit'],
  upstreams: ['models', 'audit', 'metrics'],
  prices: ['models', 'jobs', 'audit'], // price versions per kind of token, the sync job
  reconciliation: ['billing', 'credits', 'webhooks', 'jobs', 'metrics'], // processor payments vs grants; credits read only
  // The modules that serve AI calls, on top.
  ai: [
    'credits',
    'chats',
    'users',
    'models',
    'plugins',
    'uploads',
    'upstreams',
    'prices',
    'shares',
    'lifecycle',
    'metrics',
    'telemetry',
    'generations/generation.types', // the call's trace and generation record, written by settlement
  ],
  gateway: ['ai', 'models', 'prices', 'generations'], // /v1/models answers each model's prices; /v1/generations
  tasks: ['ai', 'chats', 'users', 'jobs', 'models', 'credits/credits.errors'], // credits' refusals skip a run
  search: ['ai', 'chats', 'credits', 'jobs', 'plugins', 'app.module'], // app.module: the reindex CLI
  // Budgets ride in credits' admission and settlement statements; keys and teams say whose they are.
  budgets: ['credits', 'teams', 'keys', 'audit', 'mail', 'jobs', 'metrics', 'i18n'],
  // Generation records: written by credits' settlement statement, read here and by gateway.
  generations: ['jobs'],
};

/** Modules with one public face: other modules import only these files of them. */
const FACES = { ai: ['index'] };

// Known exceptions, TO REMOVE: imports that break the layering above and exist today. Each one
// passes lint until it is gone; then delete its entry. Never add one to get a change through.
const EXCEPTIONS = {};
/** Faces declared but not yet enforced (a module's face is switched on by leaving it out). */
const UNENFORCED_FACES = [];

const withBase = (lists) =>
  Object.fromEntries(Object.entries(lists).map(([module, list]) => [module, [...BASE, ...list]]));

export default tseslint.config(
  { ignores: ['dist/**', 'node_modules/**', 'eslint.config.mjs', '.data/**', 'bench/**/*.mjs'] },
  eslint.configs.recommended,
  ...tseslint.configs.recommended,
  eslintPluginPrettierRecommended,
  {
    languageOptions: { globals: { ...globals.node, ...globals.jest } },
    rules: {
      '@typescript-eslint/no-explicit-any': 'off',
      '@typescript-eslint/no-unused-vars': ['error', { argsIgnorePattern: '^_' }],
    },
  },
  {
    files: ['src/**/*.ts'],
    plugins: { local },
    rules: {
      'local/module-imports': [
        'error',
        {
          allowed: withBase(MAY_IMPORT),
          exceptions: EXCEPTIONS,
          faces: FACES,
          unenforcedFaces: UNENFORCED_FACES,
        },
      ],
    },
  },
  // SQL statements live in *.sql.ts files beside their services (and in migrations, which lint
  // does not hold to this). Tests are exempt: they arrange and read rows with their own SQL, so a
  // statement is never checked with itself.
  {
    files: ['src/**/*.ts'],
    ignores: ['**/*.sql.ts', '**/*.spec.ts'],
    plugins: { local },
    rules: { 'local/sql-in-sql-files': 'error' },
  },
);
