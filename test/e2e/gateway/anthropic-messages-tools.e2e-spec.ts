import Anthropic from '@anthropic-ai/sdk';
import { ledgerOf, newUser } from '../../support/factories';
import { caught, costOf, useMessagesBed } from '../../support/messages-bed';

/**
 * Client tools through `/v1/messages` with the Anthropic SDK: a `tool_use` streamed, its
 * `tool_result` answered, on each provider, every call metered on its own.
 */
describe('Anthropic-compatible /v1/messages: client tools', () => {
  const bed = useMessagesBed();

  it.each([
    ['claude-haiku-4-5', 'anthropic'],
    ['gpt-4o', 'openai'],
    ['gemini-2.5-flash', 'gemini'],
  ] as const)(
    'runs a tool round trip on %s: a streamed tool_use, then the tool_result answered',
    async (model, provider) => {
      const u = await newUser(bed.t);
      const { key } = await bed.keyFor(u);
      const before = await ledgerOf(bed.t, u.user.id);
      const server = bed.p[provider];
      const tools = [
        {
          name: 'get_weather',
          description: 'The weather of a city',
          input_schema: {
            type: 'object' as const,
            properties: { city: { type: 'string' } },
            required: ['city'],
          },
        },
      ];
      const question = { role: 'user' as const, content: 'Weather in Paris?' };
      server.script = [
        { toolCalls: [{ name: 'get_weather', arguments: { city: 'Paris' } }] },
        { text: 'It is 18°C in Paris.' },
      ];
      const costs: number[] = [];
      const stream = bed.client(key).messages.stream({
        model,
        max_tokens: 200,
        tools,
        messages: [question],
      });
      stream.on('streamEvent', (event) => {
        if (event.type === 'message_delta') costs.push(costOf(event));
      });
      const first = await stream.finalMessage();
      expect(first.stop_reason).toBe('tool_use');
      const use = first.content.find((b) => b.type === 'tool_use');
      expect(use).toEqual(
        expect.objectContaining({
          name: 'get_weather',
          input: { city: 'Paris' },
          id: expect.any(String),
        }),
      );

      const second = await bed.client(key).messages.create({
        model,
        max_tokens: 200,
        tools,
        messages: [
          question,
          { role: 'assistant', content: first.content },
          {
            role: 'user',
            content: [
              {
                type: 'tool_result',
                tool_use_id: use!.type === 'tool_use' ? use!.id : '',
                content: '18°C',
              },
            ],
          },
        ],
      });
      costs.push(costOf(second));
      expect(second.stop_reason).toBe('end_turn');
      expect(second.content).toEqual([{ type: 'text', text: 'It is 18°C in Paris.' }]);
      // Both calls offered the client's tool; the second one carried its result.
      for (const { body } of server.requests)
        expect(JSON.stringify(body)).toContain('The weather of a city');
      expect(JSON.stringify(server.requests[1].body)).toContain('18°C');
      expect(server.requests).toHaveLength(2);
      expect(await bed.consumptions(u.user.id)).toHaveLength(2);
      expect((await ledgerOf(bed.t, u.user.id)).credits).toBe(before.credits - costs[0] - costs[1]);
    },
  );

  it('refuses tools for a model without the tools capability, charging nothing', async () => {
    const u = await newUser(bed.t);
    const { key } = await bed.keyFor(u);
    const ask = {
      model: 'plain-model',
      max_tokens: 10,
      tools: [{ name: 'f', input_schema: { type: 'object' as const } }],
      messages: [{ role: 'user' as const, content: 'Hi' }],
    };
    for (const refused of [
      await caught(bed.client(key).messages.create(ask)),
      await caught(bed.client(key).messages.stream(ask).finalMessage()),
    ]) {
      expect(refused).toBeInstanceOf(Anthropic.BadRequestError);
      expect(refused.errorCode).toBe('model_capability_missing');
    }
    expect(bed.p.openai.requests).toHaveLength(0);
    expect(await bed.consumptions(u.user.id)).toEqual([]);
  });
});
