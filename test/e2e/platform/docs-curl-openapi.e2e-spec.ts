import { readdirSync, readFileSync } from 'node:fs';
import { join, resolve } from 'node:path';
import { docSteps } from '../../support/doc-blocks';
import { createTestApp, type TestApp } from '../../support/test-app';

const ROOT = resolve(__dirname, '..', '..', '..');
const PAGES = ['README.md', ...readdirSync(join(ROOT, 'docs')).map((f) => `docs/${f}`)].filter(
  (f) => f.endsWith('.md'),
);

/** The document itself and its page: served, not operations of it. */
const NOT_OPERATIONS = new Set(['/api/docs', '/api/docs-json']);
/** curl's body flags with a value (not `date -d '-6 days'` in a `$(…)` of the same line). */
const DATA_FLAG = /\s(?:-d|--data(?:-raw|-binary)?|-F|--form)\s+(?!['"]?-)/;

/** One curl call written in the documentation. */
interface DocCurl {
  page: string;
  method: string;
  path: string;
  /** The `-d` JSON body, when it parses (no shell variables in it). */
  body?: Record<string, unknown>;
}

/** Every curl call of the bash blocks of `page` that reaches an API path of the service. */
function curlsOf(page: string): DocCurl[] {
  const markdown = readFileSync(join(ROOT, page), 'utf8');
  const blocks = [...markdown.matchAll(/^```(?:bash|sh)\n([\s\S]*?)^```/gm)].map((m) => m[1]);
  const calls: DocCurl[] = [];
  for (const step of blocks.flatMap(docSteps)) {
    for (const [text] of step.command.replace(/\\\n/g, ' ').matchAll(/curl\b[^|;)]*/g)) {
      const url = /(?:localhost:3000|\$B|\$BASE|\$\{B\})(\/[^\s"'?]*)/.exec(text)?.[1];
      if (!url || !/^\/(?:api|v1|health)(?:\/|$)/.test(url) || NOT_OPERATIONS.has(url)) continue;
      const data = /(?:-d|--data(?:-raw)?)\s+'([^']*)'/.exec(text)?.[1];
      const method = /-X\s*([A-Z]+)/.exec(text)?.[1] ?? (DATA_FLAG.test(text) ? 'POST' : 'GET');
      let body: Record<string, unknown> | undefined;
      try {
        body = data ? JSON.parse(data) : undefined;
      } catch {
        body = undefined;
      }
      calls.push({ page, method, path: url, body });
    }
  }
  return calls;
}

/**
 * The curl examples of README.md and docs/*.md against the live OpenAPI document: each names an
 * operation the document has (method and path, `{param}` matching any segment, placeholders such
 * as `<id>` or `$ID` included), and a JSON body written out holds every field the operation's
 * body requires. Cheap checks that keep the examples from drifting from the routes.
 */
describe('docs curl examples and the OpenAPI document', () => {
  let t: TestApp;
  let doc: {
    paths: Record<string, Record<string, any>>;
    components: { schemas: Record<string, any> };
  };
  beforeAll(async () => {
    t = await createTestApp();
    doc = (await t.http.get('/api/docs-json').expect(200)).body;
  });
  afterAll(() => t?.close());

  const calls = PAGES.flatMap(curlsOf);

  it('finds the examples', () => {
    expect(calls.length).toBeGreaterThan(40);
    expect(calls.filter((c) => c.body).length).toBeGreaterThan(10);
  });

  it('every example names a documented operation, with the body fields it requires', () => {
    const problems: string[] = [];
    const templates = Object.keys(doc.paths).map((p) => ({
      path: p,
      pattern: new RegExp(`^${p.replace(/[.]/g, '\\.').replace(/\{[^}]+\}/g, '[^/]+')}/?$`),
    }));
    for (const c of calls) {
      const where = `${c.page}: ${c.method} ${c.path}`;
      const matches = templates.filter((x) => x.pattern.test(c.path));
      // A literal segment wins over a parameter (`/api/keys/x` is not `/api/keys/{id}` when both match).
      const template = matches.sort((a, b) => b.path.length - a.path.length)[0];
      const op = template && doc.paths[template.path][c.method.toLowerCase()];
      if (!op) {
        problems.push(`${where}: no such operation`);
        continue;
      }
      const ref: string | undefined = op.requestBody?.content?.['application/json']?.schema?.$ref;
      const required: string[] = ref
        ? (doc.components.schemas[ref.split('/').pop()!]?.required ?? [])
        : [];
      const missing = c.body ? required.filter((f) => !(f in c.body!)) : [];
      if (missing.length) problems.push(`${where}: body lacks ${missing.join(', ')}`);
    }
    expect(problems).toEqual([]);
  });
});
