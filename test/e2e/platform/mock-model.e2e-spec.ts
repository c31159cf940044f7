import Ajv2020 from 'ajv/dist/2020';
import addFormats from 'ajv-formats';
import type { AddressInfo } from 'node:net';
import OpenAI from 'openai';
import { zodResponseFormat, zodTextFormat } from 'openai/helpers/zod';
import { z } from 'zod';
import { OpenAiTestServer } from '../../servers/openai-server';
import { schemaInstance } from '../../servers/schema-instance';
import { keyFor } from '../gateway/gateway-clients.helpers';
import { newUser } from '../../support/factories';
import { startProviders, type Providers } from '../../support/providers';
import { createTestApp, type TestApp } from '../../support/test-app';

/** Schemas as SDKs send them (zod's JSON Schema, OpenAI strict mode, refs, Gemini's dialect). */
const SCHEMAS: [string, object][] = [
  ['zod object', z.toJSONSchema(z.object({ a: z.string(), b: z.number().int().min(3) }))],
  [
    'enums, nullables, arrays, formats',
    z.toJSONSchema(
      z.object({
        kind: z.enum(['cat', 'dog']),
        note: z.string().nullable(),
        tags: z.array(z.string().min(6)).min(2),
        at: z.iso.datetime(),
        mail: z.email(),
        id: z.uuid(),
        score: z.number().gt(10).lte(20),
        nested: z.object({ ok: z.boolean(), n: z.number().multipleOf(5).min(7) }),
      }),
    ),
  ],
  [
    'refs and unions',
    {
      type: 'object',
      $defs: {
        city: { type: 'object', properties: { name: { type: 'string' } }, required: ['name'] },
      },
      properties: {
        home: { $ref: '#/$defs/city' },
        either: { anyOf: [{ type: 'null' }, { type: 'integer', minimum: 2 }] },
        fixed: { const: 'x' },
        both: {
          allOf: [
            { properties: { a: { type: 'string' } }, required: ['a'] },
            { properties: { b: { type: 'boolean' } } },
          ],
        },
      },
      required: ['home', 'either', 'fixed', 'both'],
      additionalProperties: false,
    },
  ],
];

describe('the local model (auto answers)', () => {
  it.each(SCHEMAS)('schemaInstance fits the schema: %s', (_, schema) => {
    const ajv = new Ajv2020({ strict: false });
    addFormats(ajv);
    const validate = ajv.compile(schema);
    const value = schemaInstance(schema);
    expect(validate(value) ? [] : validate.errors).toEqual([]);
    expect(schemaInstance(schema)).toEqual(value); // the same every time
  });

  describe('behind /v1, for each provider', () => {
    let p: Providers;
    let t: TestApp;
    let client: OpenAI;

    beforeAll(async () => {
      p = await startProviders();
      for (const s of [p.openai, p.anthropic, p.gemini]) s.auto = true;
      t = await createTestApp(p.env);
      const server = t.app.getHttpServer();
      await new Promise<void>((done) => server.listen(0, '127.0.0.1', done));
      const { key } = await keyFor(t, await newUser(t));
      const port = (server.address() as AddressInfo).port;
      client = new OpenAI({ baseURL: `http://127.0.0.1:${port}/v1`, apiKey: key, maxRetries: 0 });
    });
    afterAll(async () => {
      // The SDK's keep-alive sockets would hold the server open.
      t?.app.getHttpServer().closeAllConnections();
      await t?.close();
      await p?.stop();
    });
    afterEach(() => {
      for (const s of [p.openai, p.anthropic, p.gemini]) s.cachedTokens = 0;
    });

    const City = z.object({
      name: z.string(),
      population: z.number().int().min(1),
      kind: z.enum(['town', 'city']),
    });
    const weather = {
      type: 'function' as const,
      function: {
        name: 'get_weather',
        parameters: {
          type: 'object',
          properties: { city: { type: 'string' }, days: { type: 'integer', minimum: 1 } },
          required: ['city', 'days'],
        },
      },
    };

    it.each(['gpt-4o-mini', 'claude-haiku-4-5', 'gemini-2.5-flash'])(
      '%s: parse() on chat completions and the Responses API, a tool call, then text',
      async (model) => {
        const parsed = await client.chat.completions.parse({
          model,
          messages: [{ role: 'user', content: 'Describe Paris' }],
          response_format: zodResponseFormat(City, 'city'),
        });
        expect(parsed.choices[0].message.parsed).toEqual({
          name: 'text',
          population: 1,
          kind: 'town',
        });
        const response = await client.responses.parse({
          model,
          input: 'Describe Paris',
          text: { format: zodTextFormat(City, 'city') },
        });
        expect(response.output_parsed).toEqual({ name: 'text', population: 1, kind: 'town' });

        const messages: OpenAI.ChatCompletionMessageParam[] = [
          { role: 'user', content: 'Weather?' },
        ];
        const called = await client.chat.completions.create({ model, messages, tools: [weather] });
        const [call] = called.choices[0].message
          .tool_calls as OpenAI.ChatCompletionMessageFunctionToolCall[];
        expect(called.choices[0].finish_reason).toBe('tool_calls');
        expect(call.function).toEqual({
          name: 'get_weather',
          arguments: '{"city":"text","days":1}',
        });
        messages.push(called.choices[0].message, {
          role: 'tool',
          tool_call_id: call.id,
          content: 'Sunny',
        });
        const answered = await client.chat.completions.create({
          model,
          messages,
          tools: [weather],
        });
        expect(answered.choices[0].message.content).toBe('Hello from the test model.');
        const refused = await client.chat.completions.create({
          model,
          messages: [{ role: 'user', content: 'Weather?' }],
          tools: [weather],
          tool_choice: 'none',
        });
        expect(refused.choices[0].message.tool_calls ?? []).toEqual([]);
      },
    );

    it.each(['gpt-4o-mini', 'claude-haiku-4-5', 'gemini-2.5-flash'])(
      '%s: reports cached prompt tokens when configured',
      async (model) => {
        for (const s of [p.openai, p.anthropic, p.gemini]) s.cachedTokens = 8;
        const answer = await client.chat.completions.create({
          model,
          messages: [{ role: 'user', content: 'Say hello' }],
        });
        expect(answer.usage?.prompt_tokens_details?.cached_tokens).toBe(8);
      },
    );
  });
});

describe('the local model with concurrent requests', () => {
  it('answers each request with the reply it took, while another one stalls mid-reply', async () => {
    const server = await new OpenAiTestServer().start();
    try {
      const client = new OpenAI({ apiKey: 'local', baseURL: server.url, maxRetries: 0 });
      const ask = { model: 'gpt-4o', messages: [{ role: 'user' as const, content: 'Hi' }] };
      server.script = [{ stallAfterChunks: 1 }];
      const stalled = await client.chat.completions.create({ ...ask, stream: true });
      await stalled[Symbol.asyncIterator]().next();
      // The stalled request is still open: the next one takes `reply`, not the stall.
      let text = '';
      for await (const chunk of await client.chat.completions.create({ ...ask, stream: true }))
        text += chunk.choices[0]?.delta?.content ?? '';
      expect(text).toBe('Hello from the test model.');
      stalled.controller.abort();
    } finally {
      await server.stop();
    }
  });
});
