/**
 * OpenAPI 3.0 schemas as draft-07 JSON Schema for Dredd's validator (Gavel, ajv 6). Dredd's
 * OpenAPI 3 parser gives Gavel only a generated example body, from which Gavel infers a schema
 * where every example key is required; the hooks hand it the document's own schema instead.
 */

type Node = Record<string, unknown>;

/** Formats ajv 6 knows; it refuses to compile a schema with any other (`int32`, `binary`…). */
const KNOWN_FORMATS = new Set(['date-time', 'date', 'time', 'email', 'uri', 'uuid', 'ipv4']);
/** OpenAPI annotations with no JSON Schema meaning (examples are data, not schemas). */
const DROPPED = new Set([
  'nullable',
  'example',
  'examples',
  'xml',
  'externalDocs',
  'discriminator',
]);

/** `schema` (a response media type's) with every component schema as `definitions`. */
export function toJsonSchema(schema: object, components: Record<string, object> = {}): object {
  const definitions = Object.fromEntries(
    Object.entries(components).map(([name, s]) => [name, convert(s as Node)]),
  );
  return {
    $schema: 'http://json-schema.org/draft-07/schema#',
    ...convert(schema as Node),
    definitions,
  };
}

function convert(node: Node): Node {
  const out: Node = {};
  for (const [key, value] of Object.entries(node)) {
    if (DROPPED.has(key) || key.startsWith('x-')) continue;
    if (key === 'format' && !KNOWN_FORMATS.has(value as string)) continue;
    if (key === '$ref')
      out.$ref = (value as string).replace('#/components/schemas/', '#/definitions/');
    else if (key === 'properties')
      out.properties = Object.fromEntries(
        Object.entries(value as Record<string, Node>).map(([name, s]) => [name, convert(s)]),
      );
    else if (key === 'allOf' || key === 'oneOf' || key === 'anyOf')
      out[key] = (value as Node[]).map(convert);
    else if ((key === 'items' || key === 'additionalProperties' || key === 'not') && isNode(value))
      out[key] = convert(value);
    else out[key] = value;
  }
  if (node.nullable !== true) return out;
  // OpenAPI 3.0 `nullable`: null is one more accepted value.
  if (typeof out.type === 'string' && !out.$ref && !out.allOf && !out.oneOf && !out.anyOf)
    return {
      ...out,
      type: [out.type, 'null'],
      ...(Array.isArray(out.enum) && !out.enum.includes(null)
        ? { enum: [...(out.enum as unknown[]), null] }
        : {}),
    };
  return { anyOf: [out, { type: 'null' }] };
}

function isNode(value: unknown): value is Node {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}
