import type { OpenAPIObject } from '@nestjs/swagger';

/** A UUID-shaped example for `{id}`, `{userId}`, `{runId}`…: every such route parses a UUID. */
export const EXAMPLE_UUID = '3fa85f64-5717-4562-b3fc-2c963f66afa6';

/**
 * Examples of path parameters that are not UUIDs, by name. A new path parameter that is neither
 * here, nor named `id`/`…Id`, nor given an example by `@ApiParam`, is caught by the document test.
 */
const PATH_EXAMPLES: Record<string, string> = {
  // A share link's token: 32 random bytes, base64url.
  token: 'pQ3cX0v9Yl7fT2kB8sW1nE4rJ6uH5gA0dZ-mK_yVqOi',
  // A stored upload: `<ms timestamp>-<32 hex digits>-<sanitised name>`.
  filename: '1735689600000-0123456789abcdef0123456789abcdef-notes.txt',
};

/**
 * Gives every parameter an `example` at the parameter itself (OpenAPI `parameter.example`), which
 * is where contract tools such as Dredd look to expand a URL: one written on the schema by
 * `@ApiProperty`/`@ApiParam` is lifted; path parameters without one get a UUID (`id`, `…Id`) or
 * the example of their name above. Parameters already carrying `example(s)` are left alone.
 */
export function exampleParameters(document: OpenAPIObject): void {
  for (const item of Object.values(document.paths))
    for (const op of Object.values(item) as { parameters?: ParameterLike[] }[]) {
      if (!Array.isArray(op?.parameters)) continue;
      for (const param of op.parameters) {
        if (!param.in || param.example !== undefined || param.examples) continue;
        const example =
          param.schema?.example ?? (param.in === 'path' ? pathExample(param.name) : undefined);
        if (example !== undefined) param.example = example;
      }
    }
}

function pathExample(name: string): string | undefined {
  if (name in PATH_EXAMPLES) return PATH_EXAMPLES[name];
  return name === 'id' || name.endsWith('Id') ? EXAMPLE_UUID : undefined;
}

/**
 * A schema property that may be left out (not in `required`) states its default in its
 * description instead of the JSON Schema `default` keyword ("Default when left out: `1000`.").
 * openapi-typescript, with its default options (`defaultNonNullable`), types any property with a
 * `default` in `components.schemas` as always present, so a client could not leave out `role`,
 * `maxTokens`… in a request it builds, nor expect them absent from an answer. Required
 * properties keep `default`; parameters keep theirs (openapi-typescript leaves them optional).
 */
export function describeOptionalDefaults(document: OpenAPIObject): void {
  for (const schema of Object.values(document.components?.schemas ?? {}))
    visit(schema as SchemaLike);
}

function visit(schema: SchemaLike | undefined): void {
  if (!schema || typeof schema !== 'object' || schema.$ref) return;
  const required = new Set(schema.required ?? []);
  for (const [name, property] of Object.entries(schema.properties ?? {})) {
    if (!required.has(name) && property.default !== undefined) {
      const said = `Default when left out: \`${JSON.stringify(property.default)}\`.`;
      property.description = [property.description, said].filter(Boolean).join('\n\n');
      delete property.default;
    }
    visit(property);
  }
  visit(schema.items);
  if (typeof schema.additionalProperties === 'object') visit(schema.additionalProperties);
  for (const part of [...(schema.allOf ?? []), ...(schema.oneOf ?? []), ...(schema.anyOf ?? [])])
    visit(part);
}

interface ParameterLike {
  name: string;
  in?: string;
  example?: unknown;
  examples?: unknown;
  schema?: { example?: unknown };
}

interface SchemaLike {
  $ref?: string;
  default?: unknown;
  description?: string;
  required?: string[];
  properties?: Record<string, SchemaLike>;
  items?: SchemaLike;
  additionalProperties?: SchemaLike | boolean;
  allOf?: SchemaLike[];
  oneOf?: SchemaLike[];
  anyOf?: SchemaLike[];
}
