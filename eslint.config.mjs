// @ts-check
import eslint from '@eslint/js';
import eslintPluginPrettierRecommended from 'eslint-plugin-prettier/recommended';
import globals from 'globals';
import tseslint from 'typescript-eslint';

/**
 * The relative import paths by which a file up to three folders below `src/` reaches the
 * top-level `src/<folder>` of each of `folders` (the codebase imports by relative path only).
 */
const reach = (...folders) =>
  folders.flatMap((folder) =>
    [1, 2, 3].flatMap((up) => [`${'../'.repeat(up)}${folder}`, `${'../'.repeat(up)}${folder}/**`]),
  );

/** `no-restricted-imports` refusing every import of `folders`, with the rule as its message. */
const forbid = (folders, message) => ({
  'no-restricted-imports': ['error', { patterns: [{ group: reach(...folders), message }] }],
});

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
  // Layering (docs/architecture.md): dependencies point one way, from the AI-facing modules down.
  {
    files: ['src/common/**', 'src/chats/**', 'src/users/**', 'src/credits/**'],
    rules: forbid(
      ['ai', 'gateway', 'tasks', 'search'],
      'common, users, credits and chats sit below ai, gateway, tasks and search and never import them (models holds what they share).',
    ),
  },
  {
    files: ['src/models/**'],
    rules: forbid(
      ['ai', 'gateway', 'tasks', 'search', 'chats', 'users', 'credits'],
      'models sits below every module that names a model and imports only common and config.',
    ),
  },
  {
    files: ['src/upstreams/**'],
    rules: forbid(
      ['ai', 'gateway', 'tasks', 'search', 'chats', 'users', 'credits'],
      'upstreams sits below ai (ai asks its router which upstream to call) and imports only models, audit, metrics, common, config and database.',
    ),
  },
  {
    files: ['src/gateway/**'],
    rules: forbid(
      ['credits'],
      'gateway maps wire formats to and from AiService, which meters every call: it never imports credits.',
    ),
  },
);
