// The project's own ESLint rules, registered under the prefix `local/` in eslint.config.mjs.
import moduleImports from './module-imports.mjs';
import sqlInSqlFiles from './sql-in-sql-files.mjs';

export default {
  meta: { name: 'local' },
  rules: { 'module-imports': moduleImports, 'sql-in-sql-files': sqlInSqlFiles },
};
