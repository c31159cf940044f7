// ESLint rule `local/module-imports`: a file in `src/<module>/` imports another module only when
// that module's allow-list names it. Options: `{ allowed, exceptions, faces, unenforcedFaces }`:
//   allowed, exceptions: module → entries. An entry is a module (`'chats'`: any file of it,
//     through its face when it has one), one file or folder of it (`'users/user.entity'`,
//     `'plugins/ssrf'`), or a module with `/**` (any file, even past its face). A top-level file
//     of `src/` counts as a module named after it (`'tracing'` for `src/tracing.ts`).
//     `exceptions` work like `allowed`; they are kept apart because each is an edge to remove.
//   faces: module → the files (without extension) other modules may import, e.g. `{ ai: ['index'] }`.
//   unenforcedFaces: modules whose face is declared but not yet enforced.
// Files directly in `src/` (main.ts, app.module.ts, …) compose the application and are not checked.
import fs from 'node:fs';
import path from 'node:path';

/** `src/<a>/<b>.ts` → `['a', 'b']`; '' for an import of the module's folder (its index). */
const targetOf = (root, fromFile, specifier) => {
  const abs = path.resolve(path.dirname(fromFile), specifier);
  const rel = path.relative(path.join(root, 'src'), abs).split(path.sep);
  if (rel[0] === '..' || rel[0] === '') return null;
  const [head, ...rest] = rel;
  const bare = (p) => p.replace(/\.(d\.ts|ts|js|mjs|cjs)$/, '').replace(/(^|\/)index$/, '');
  if (rest.length === 0) {
    const isFolder = fs.existsSync(path.join(root, 'src', head));
    return isFolder ? { module: head, file: '' } : { module: bare(head), file: null };
  }
  return { module: head, file: bare(rest.join('/')) };
};

/** Whether `entry` lets a module import `file` of `module`, given that module's face. */
const admits = (entry, target, face) => {
  if (entry === `${target.module}/**`) return true;
  if (entry === target.module) {
    if (!face || target.file === null) return true;
    return face.some((f) => (f === 'index' ? target.file === '' : target.file === f));
  }
  const prefix = `${target.module}/`;
  if (!entry.startsWith(prefix) || target.file === null) return false;
  const inner = entry.slice(prefix.length);
  return target.file === inner || target.file.startsWith(`${inner}/`);
};

export default {
  meta: {
    type: 'problem',
    docs: { description: 'A module imports only what its allow-list names (eslint.config.mjs).' },
    schema: [
      {
        type: 'object',
        properties: {
          allowed: { type: 'object' },
          exceptions: { type: 'object' },
          faces: { type: 'object' },
          unenforcedFaces: { type: 'array', items: { type: 'string' } },
        },
        additionalProperties: false,
      },
    ],
    messages: {
      unlisted:
        'src/{{from}} has no allow-list: add `{{from}}: [...]` to the module allow-lists in eslint.config.mjs (docs/architecture.md, Layering).',
      refused:
        'src/{{from}} may not import src/{{to}} ({{spec}}). It may import: {{list}}. The allow-lists are in eslint.config.mjs (docs/architecture.md, Layering).',
      face: 'src/{{from}} imports src/{{to}}/{{file}}: other modules import {{to}} only through {{face}}.',
    },
  },
  create(context) {
    const options = context.options[0] ?? {};
    const allowed = options.allowed ?? {};
    const exceptions = options.exceptions ?? {};
    const faces = options.faces ?? {};
    const unenforced = new Set(options.unenforcedFaces ?? []);
    const root = context.cwd;
    const file = context.filename;
    const own = path.relative(path.join(root, 'src'), file).split(path.sep);
    if (own.length < 2 || own[0] === '..') return {};
    const from = own[0];
    const entries = [...(allowed[from] ?? []), ...(exceptions[from] ?? [])];

    const check = (node, specifier) => {
      if (typeof specifier !== 'string' || !specifier.startsWith('.')) return;
      const target = targetOf(root, file, specifier);
      if (!target || target.module === from) return;
      if (!(from in allowed) && !(from in exceptions)) {
        context.report({ node, messageId: 'unlisted', data: { from } });
        return;
      }
      const face = unenforced.has(target.module) ? undefined : faces[target.module];
      if (entries.some((entry) => admits(entry, target, face))) return;
      const reachable = entries.some((e) => admits(e, target, undefined));
      if (reachable && face) {
        const faceFiles = face.map((f) => `src/${target.module}/${f}.ts`).join(', ');
        const data = { from, to: target.module, file: target.file, face: faceFiles };
        context.report({ node, messageId: 'face', data });
        return;
      }
      const list = entries.length ? entries.join(', ') : 'no other module';
      const to = target.file ? `${target.module}/${target.file}` : target.module;
      context.report({ node, messageId: 'refused', data: { from, to, spec: specifier, list } });
    };
    const fromSource = (node) => node.source && check(node.source, node.source.value);

    return {
      ImportDeclaration: fromSource,
      ExportNamedDeclaration: fromSource,
      ExportAllDeclaration: fromSource,
      ImportExpression: (node) => node.source.type === 'Literal' && check(node, node.source.value),
      TSImportType: (node) => {
        const arg = node.argument?.literal ?? node.argument;
        if (arg?.type === 'Literal') check(node, arg.value);
      },
      TSExternalModuleReference: (node) =>
        node.expression.type === 'Literal' && check(node, node.expression.value),
      CallExpression: (node) => {
        const [arg] = node.arguments;
        const isRequire = node.callee.type === 'Identifier' && node.callee.name === 'require';
        if (isRequire && arg?.type === 'Literal') check(node, arg.value);
      },
    };
  },
};
