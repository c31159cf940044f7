/**
 * The first valid value of a JSON Schema, deterministically: what the local model servers answer
 * when asked for JSON or a tool call (a schema's arguments). Covers what tool and response
 * schemas use: `type` (one or a list: the first that is not `null`), `const`, `enum` (its first
 * value), `default`, `properties` (every one, so `required` is always met), `items` /
 * `prefixItems` / `minItems`, `anyOf` / `oneOf` (the first branch that is not `null`), `allOf`
 * (merged), `$ref` to `#/...` of the root schema, string `minLength` / `maxLength` / `format`
 * (date-time, date, time, email, uri, uuid) and number `minimum` / `exclusiveMinimum` /
 * `maximum` / `multipleOf`. Not `pattern`: such a string is `text` lengthened to `minLength`.
 */
export function schemaInstance(schema: unknown, root: unknown = schema, depth = 0): unknown {
  if (!isObject(schema) || depth > 20) return schema === false ? null : {};
  if (typeof schema.$ref === 'string') {
    return schemaInstance(resolveRef(root, schema.$ref), root, depth + 1);
  }
  if ('const' in schema) return schema.const;
  if (Array.isArray(schema.enum) && schema.enum.length) return schema.enum[0];
  if ('default' in schema && schema.default !== undefined) return schema.default;
  const branches = (schema.anyOf ?? schema.oneOf) as unknown[] | undefined;
  if (Array.isArray(branches) && branches.length) {
    const first = branches.find((b) => !(isObject(b) && /^null$/i.test(b.type))) ?? branches[0];
    return schemaInstance(first, root, depth + 1);
  }
  if (Array.isArray(schema.allOf)) {
    const merged: Record<string, any> = { ...schema, allOf: undefined };
    for (const part of schema.allOf) {
      if (!isObject(part)) continue;
      Object.assign(merged, part, {
        properties: { ...merged.properties, ...(part.properties as object) },
        required: [...(merged.required ?? []), ...((part.required as string[]) ?? [])],
      });
    }
    delete merged.allOf;
    return schemaInstance(merged, root, depth + 1);
  }
  switch (typeOf(schema)) {
    case 'null':
      return null;
    case 'boolean':
      return true;
    case 'integer':
      return numberIn(schema, true);
    case 'number':
      return numberIn(schema, false);
    case 'string':
      return stringIn(schema);
    case 'array': {
      const prefix = Array.isArray(schema.prefixItems) ? schema.prefixItems : [];
      const count = Math.max(prefix.length, Number(schema.minItems ?? 1));
      return Array.from({ length: count }, (_, i) =>
        schemaInstance(i < prefix.length ? prefix[i] : (schema.items ?? {}), root, depth + 1),
      );
    }
    default: {
      const properties = isObject(schema.properties) ? schema.properties : {};
      return Object.fromEntries(
        Object.entries(properties).map(([k, v]) => [k, schemaInstance(v, root, depth + 1)]),
      );
    }
  }
}

function isObject(v: unknown): v is Record<string, any> {
  return typeof v === 'object' && v !== null && !Array.isArray(v);
}

/** The schema's type: its `type` (the first not `null` of a list), else guessed from its keywords. */
function typeOf(schema: Record<string, any>): string {
  // Gemini's own schema dialect writes types in capitals (`OBJECT`).
  const t = schema.type;
  if (Array.isArray(t))
    return String(t.find((x) => x !== 'null') ?? t[0] ?? 'object').toLowerCase();
  if (typeof t === 'string') return t.toLowerCase();
  if (schema.items || schema.prefixItems) return 'array';
  return 'object';
}

/** `#/a/b` of `root` (JSON Pointer, `~1` and `~0` decoded); `{}` when it is not there. */
function resolveRef(root: unknown, ref: string): unknown {
  if (!ref.startsWith('#')) return {};
  let at: any = root;
  for (const raw of ref.slice(1).split('/').filter(Boolean)) {
    at = isObject(at) ? at[decodeURIComponent(raw).replace(/~1/g, '/').replace(/~0/g, '~')] : {};
  }
  return at ?? {};
}

function numberIn(schema: Record<string, any>, integer: boolean): number {
  const step = Number(schema.multipleOf) || (integer ? 1 : 0);
  let n =
    typeof schema.minimum === 'number'
      ? schema.minimum
      : typeof schema.exclusiveMinimum === 'number'
        ? schema.exclusiveMinimum + (step || 1)
        : typeof schema.maximum === 'number'
          ? Math.min(0, schema.maximum)
          : 0;
  if (step) n = Math.ceil(n / step) * step;
  return integer ? Math.ceil(n) : n;
}

const FORMATS: Record<string, string> = {
  'date-time': '2026-01-01T00:00:00Z',
  date: '2026-01-01',
  time: '00:00:00Z',
  email: 'ada@example.com',
  uri: 'https://example.com/',
  url: 'https://example.com/',
  uuid: '00000000-0000-4000-8000-000000000000',
};

function stringIn(schema: Record<string, any>): string {
  const formatted = FORMATS[String(schema.format)];
  if (formatted) return formatted;
  const min = Number(schema.minLength ?? 0);
  const max = Number(schema.maxLength ?? Infinity);
  return 'text'.padEnd(min, 'x').slice(0, Math.max(min, Math.min(4, max)));
}
