// ESLint rule `local/sql-in-sql-files`: a string or template literal that starts an SQL statement
// belongs in a `*.sql.ts` file (eslint.config.mjs says where the rule applies). A statement is
// recognised by its first words, written in capitals as the house style writes SQL, after any
// leading blanks and SQL comments: SELECT, (SELECT, INSERT INTO, UPDATE x SET, DELETE FROM, WITH x AS,
// CREATE/ALTER/DROP of a schema object, TRUNCATE, LOCK TABLE, LISTEN/UNLISTEN/NOTIFY, COPY,
// MERGE INTO. The unambiguous shapes are also recognised in lower case (insert into, delete from,
// update x set, select … from). A bare word (the HTTP method 'DELETE', 'with plugins: …') is not.

const OBJECTS =
  'TABLE|INDEX|VIEW|MATERIALIZED\\s+VIEW|FUNCTION|PROCEDURE|TRIGGER|TYPE|SCHEMA|EXTENSION|SEQUENCE|DATABASE|ROLE|POLICY|DOMAIN|RULE';
const NAME = '(?:"[^"]+"|[A-Za-z_][\\w.]*)';

const STATEMENT = new RegExp(
  [
    'SELECT\\s',
    '\\(\\s*SELECT\\s', // a subquery
    'UPDATE\\s+$', // `UPDATE ${table} SET …`
    'WITH\\s+(?:RECURSIVE\\s+)?$', // `WITH ${cte} …`
    'INSERT\\s+INTO\\s',
    `UPDATE\\s+${NAME}(?:\\s+(?:AS\\s+)?\\w+)?\\s+SET\\s`,
    'DELETE\\s+FROM\\s',
    `WITH\\s+(?:RECURSIVE\\s+)?${NAME}(?:\\s*\\([^)]*\\))?\\s+AS\\s`,
    `(?:CREATE|ALTER|DROP)\\s+(?:OR\\s+REPLACE\\s+)?(?:UNIQUE\\s+|TEMP(?:ORARY)?\\s+)?(?:${OBJECTS})\\b`,
    'TRUNCATE\\s',
    'LOCK\\s+TABLE\\s',
    '(?:UN)?LISTEN\\s',
    'NOTIFY\\s',
    'COPY\\s',
    'MERGE\\s+INTO\\s',
  ]
    .map((shape) => `^${shape}`)
    .join('|'),
);

const LOWER_CASE_STATEMENT = new RegExp(
  [
    'insert\\s+into\\s',
    'delete\\s+from\\s',
    `update\\s+${NAME}\\s+set\\s`,
    `select\\s[\\s\\S]*\\sfrom\\s+${NAME}`,
  ]
    .map((shape) => `^${shape}`)
    .join('|'),
);

/** The text with its leading blanks and SQL comments (`-- …` lines, `/* … *\/` blocks) removed. */
const head = (text) => {
  let rest = text;
  for (;;) {
    const next = rest
      .replace(/^\s+/, '')
      .replace(/^--[^\n]*(\n|$)/, '')
      .replace(/^\/\*[\s\S]*?\*\//, '');
    if (next === rest) return rest;
    rest = next;
  }
};

/** Whether `text` starts an SQL statement. */
export const isSqlStatement = (text) => {
  const start = head(text);
  return STATEMENT.test(start) || LOWER_CASE_STATEMENT.test(start);
};

export default {
  meta: {
    type: 'problem',
    docs: { description: 'SQL statements live in *.sql.ts files (and migrations).' },
    schema: [],
    messages: {
      inline:
        "An SQL statement outside a *.sql.ts file: move it to the module's <name>.sql.ts as a named, documented constant (CONTRIBUTING.md, SQL).",
    },
  },
  create(context) {
    return {
      Literal(node) {
        if (typeof node.value === 'string' && isSqlStatement(node.value))
          context.report({ node, messageId: 'inline' });
      },
      TemplateLiteral(node) {
        const first = node.quasis[0]?.value.cooked ?? node.quasis[0]?.value.raw ?? '';
        if (isSqlStatement(first)) context.report({ node, messageId: 'inline' });
      },
    };
  },
};
