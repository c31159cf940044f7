import { AIMessage, HumanMessage, type BaseMessage } from '@langchain/core/messages';
import { tool } from '@langchain/core/tools';
import { ChatOpenAI } from '@langchain/openai';
import { z } from 'zod';
import { newUser } from '../../support/factories';
import {
  booksOf,
  chargedSince,
  type Gateway,
  keyFor,
  settledBooksOf,
  startGateway,
} from './gateway-clients.helpers';

/** The `cost` our /v1 answer carries next to OpenAI's fields, as LangChain's raw response keeps it. */
const costOf = (m: BaseMessage): number =>
  (m.additional_kwargs.__raw_response as { cost: number }).cost;

/**
 * LangChain's ChatOpenAI, unchanged but for its base URL and key, against /v1/chat/completions:
 * tools it binds come back as tool calls, structured output is parsed from the answer, and a
 * manual agent loop (call → run the tool → ToolMessage → call) ends with the model's answer.
 * The server never runs a tool; LangChain does.
 */
describe('LangChain ChatOpenAI against /v1', () => {
  let g: Gateway;
  beforeAll(async () => {
    g = await startGateway();
  });
  afterAll(() => g.close());
  beforeEach(() => g.p.reset());

  const chat = (apiKey: string, model = 'gpt-4o') =>
    new ChatOpenAI({
      model,
      apiKey,
      configuration: { baseURL: g.baseURL },
      maxRetries: 0,
      __includeRawResponse: true,
    });

  const weather = tool(async ({ city }: { city: string }) => `Sunny and 21 °C in ${city}`, {
    name: 'get_weather',
    description: 'The current weather of a city',
    schema: z.object({ city: z.string().describe('City name') }),
  });

  it('bindTools: the model asks for the tool, the call comes back parsed, charged as one call', async () => {
    const u = await newUser(g.t);
    const { key } = await keyFor(g.t, u);
    const before = await booksOf(g.t, u.user.id);
    g.p.openai.reply = {
      toolCalls: [{ id: 'call_w1', name: 'get_weather', arguments: { city: 'Paris' } }],
      usage: { prompt_tokens: 400, completion_tokens: 300 },
    };
    const answer = await chat(key).bindTools([weather]).invoke('What is the weather in Paris?');

    expect(answer.tool_calls).toEqual([
      expect.objectContaining({ id: 'call_w1', name: 'get_weather', args: { city: 'Paris' } }),
    ]);
    expect(answer.response_metadata.finish_reason).toBe('tool_calls');
    // The tool reached the provider as a function tool with its JSON schema.
    const sent = g.p.openai.requests[0].body;
    expect(sent.tools).toEqual([
      expect.objectContaining({
        type: 'function',
        function: expect.objectContaining({
          name: 'get_weather',
          parameters: expect.objectContaining({
            type: 'object',
            properties: { city: expect.objectContaining({ type: 'string' }) },
          }),
        }),
      }),
    ]);
    const charged = chargedSince(before, await settledBooksOf(g.t, u.user.id), 1);
    expect(costOf(answer)).toBe(charged);
  });

  it('withStructuredOutput(zod): the answer is parsed into the schema; the schema went upstream', async () => {
    const u = await newUser(g.t);
    const { key } = await keyFor(g.t, u);
    const before = await booksOf(g.t, u.user.id);
    const city = z.object({
      name: z.string(),
      country: z.string(),
      population: z.number().int(),
    });
    g.p.openai.reply = {
      text: JSON.stringify({ name: 'Paris', country: 'France', population: 2_100_000 }),
      usage: { prompt_tokens: 120, completion_tokens: 40 },
    };
    const { parsed, raw } = await chat(key)
      .withStructuredOutput(city, { name: 'city', includeRaw: true })
      .invoke('Describe Paris');

    expect(parsed).toEqual({ name: 'Paris', country: 'France', population: 2_100_000 });
    const format = g.p.openai.requests[0].body.response_format;
    expect(format).toEqual(
      expect.objectContaining({
        type: 'json_schema',
        json_schema: expect.objectContaining({
          name: 'city',
          schema: expect.objectContaining({
            type: 'object',
            required: expect.arrayContaining(['name', 'country', 'population']),
          }),
        }),
      }),
    );
    const charged = chargedSince(before, await settledBooksOf(g.t, u.user.id), 1);
    expect(costOf(raw)).toBe(charged);
  });

  it.each([
    ['gpt-4o', 'openai'],
    ['claude-haiku-4-5', 'anthropic'],
  ] as const)(
    'an agent loop with one tool over %s: tool call, ToolMessage, final answer; one entry per call',
    async (model, upstream) => {
      const u = await newUser(g.t);
      const { key } = await keyFor(g.t, u);
      const before = await booksOf(g.t, u.user.id);
      g.p[upstream].script = [
        { toolCalls: [{ id: 'call_loop_1', name: 'get_weather', arguments: { city: 'Oslo' } }] },
        { text: 'It is sunny and 21 °C in Oslo.' },
      ];
      const agent = chat(key, model).bindTools([weather]);
      const messages: BaseMessage[] = [new HumanMessage('Weather in Oslo?')];
      let answer: AIMessage = await agent.invoke(messages);
      let calls = 1;
      const costs = [costOf(answer)];
      // Bounded by the script: two turns at most, a third would be a loop that never ends.
      while (answer.tool_calls?.length && calls < 3) {
        messages.push(answer);
        for (const call of answer.tool_calls) messages.push(await weather.invoke(call));
        answer = await agent.invoke(messages);
        costs.push(costOf(answer));
        calls++;
      }

      expect(calls).toBe(2);
      expect(answer.content).toBe('It is sunny and 21 °C in Oslo.');
      expect(answer.tool_calls ?? []).toEqual([]);
      expect(g.p[upstream].requests).toHaveLength(2);
      // The second call carried the tool's result to the provider, in the provider's own shape.
      const second = JSON.stringify(g.p[upstream].requests[1].body);
      expect(second).toContain('Sunny and 21 °C in Oslo');
      expect(second).toContain('call_loop_1');
      const after = await settledBooksOf(g.t, u.user.id);
      const charged = chargedSince(before, after, 2);
      expect(costs.reduce((a, b) => a + b, 0)).toBe(charged);
      expect(after.consumptions.slice(-2).map((e) => e.modelId)).toEqual([model, model]);
    },
  );
});
