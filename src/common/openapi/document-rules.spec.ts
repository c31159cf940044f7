import type { OpenAPIObject } from '@nestjs/swagger';
import { describeOptionalDefaults, EXAMPLE_UUID, exampleParameters } from './document-rules';

const docWith = (parts: Partial<OpenAPIObject>): OpenAPIObject =>
  ({ openapi: '3.0.0', info: { title: 't', version: '1' }, paths: {}, ...parts }) as OpenAPIObject;

describe('document rules', () => {
  it('states the default of an optional property in words, nested ones too', () => {
    const doc = docWith({
      components: {
        schemas: {
          Invite: {
            type: 'object',
            required: ['email', 'plan'],
            properties: {
              email: { type: 'string' },
              role: { type: 'string', enum: ['ADMIN', 'MEMBER'], default: 'MEMBER' },
              plan: { type: 'string', default: 'FREE' },
              options: {
                type: 'object',
                properties: { steps: { type: 'integer', default: 5, description: 'tool calls' } },
              },
            },
          },
        },
      },
    });
    describeOptionalDefaults(doc);
    const invite = doc.components!.schemas!.Invite as { properties: Record<string, object> };
    expect(invite.properties.role).toEqual({
      type: 'string',
      enum: ['ADMIN', 'MEMBER'],
      description: 'Default when left out: `"MEMBER"`.',
    });
    // Required: always present in answers, so the default stays (openapi-typescript agrees).
    expect(invite.properties.plan).toEqual({ type: 'string', default: 'FREE' });
    expect(invite.properties.options).toMatchObject({
      properties: {
        steps: { type: 'integer', description: 'tool calls\n\nDefault when left out: `5`.' },
      },
    });
  });

  it('gives path parameters an example by name and lifts schema examples to the parameter', () => {
    const param = (
      name: string,
      where: 'path' | 'query' = 'path',
      schema: object = { type: 'string' },
    ) => ({
      name,
      in: where,
      required: where === 'path',
      schema,
    });
    const doc = docWith({
      paths: {
        '/a/{id}/b/{runId}/{token}/{filename}/{eventId}/{other}': {
          get: {
            responses: {},
            parameters: [
              param('id'),
              param('runId'),
              param('token'),
              param('filename'),
              param('eventId', 'path', { type: 'string', example: 'evt_1' }),
              param('other'),
              param('q', 'query', { type: 'string', example: 'gaps' }),
              { ...param('kept'), example: 'mine' },
            ],
          },
        },
      },
    });
    exampleParameters(doc);
    const params = Object.values(doc.paths)[0].get!.parameters as { example?: unknown }[];
    expect(params.map((p) => p.example)).toEqual([
      EXAMPLE_UUID,
      EXAMPLE_UUID,
      expect.stringMatching(/^[\w-]{43}$/),
      expect.stringMatching(/^\d+-[0-9a-f]{32}-.+$/),
      'evt_1',
      // No rule for it: the document test names it.
      undefined,
      'gaps',
      'mine',
    ]);
  });
});
