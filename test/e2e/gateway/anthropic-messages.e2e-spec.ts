import { ledgerOf, newUser } from '../../support/factories';
import { costOf, useMessagesBed } from '../../support/messages-bed';
import { PNG_BYTES } from '../../support/uploads';

/**
 * `/v1/messages`, Anthropic's Messages API, driven by the official `@anthropic-ai/sdk` with only
 * its base URL and key changed, for models of all three providers: whole and streamed answers,
 * images, count_tokens and thinking.
 */
describe('Anthropic-compatible /v1/messages', () => {
  const bed = useMessagesBed();

  it.each(['claude-haiku-4-5', 'gpt-4o', 'gemini-2.5-flash'])(
    'answers messages.create for %s, metered through the key (x-api-key), saving nothing',
    async (model) => {
      const u = await newUser(bed.t);
      const { id, key } = await bed.keyFor(u);
      const before = await ledgerOf(bed.t, u.user.id);
      const message = await bed.client(key).messages.create({
        model,
        max_tokens: 50,
        system: 'Be brief.',
        messages: [{ role: 'user', content: [{ type: 'text', text: 'Say hello' }] }],
      });
      expect(message).toEqual(
        expect.objectContaining({
          type: 'message',
          role: 'assistant',
          model,
          content: [{ type: 'text', text: 'Hello from the test model.' }],
          stop_reason: 'end_turn',
          stop_sequence: null,
        }),
      );
      expect(message.id).toMatch(/^msg_/);
      expect(message.usage).toEqual(
        expect.objectContaining({ input_tokens: 10, output_tokens: 20 }),
      );
      const cost = costOf(message);
      expect(cost).toBeGreaterThan(0);
      expect(await bed.consumptions(u.user.id)).toEqual([
        expect.objectContaining({ amount: -cost, keyId: id, modelId: model }),
      ]);
      expect((await ledgerOf(bed.t, u.user.id)).credits).toBe(before.credits - cost);
      expect(await bed.t.db.query('SELECT id FROM chats WHERE "userId" = $1', [u.user.id])).toEqual(
        [],
      );
    },
  );

  it.each(['claude-haiku-4-5', 'gpt-4o', 'gemini-2.5-flash'])(
    'streams %s in Anthropic events; finalMessage holds the text, message_delta the cost',
    async (model) => {
      const u = await newUser(bed.t);
      const { key } = await bed.keyFor(u);
      bed.p.openai.reply =
        bed.p.anthropic.reply =
        bed.p.gemini.reply =
          { text: 'one two three', chunks: 3 };
      const before = await ledgerOf(bed.t, u.user.id);
      const stream = bed.client(key).messages.stream({
        model,
        max_tokens: 50,
        messages: [{ role: 'user', content: 'Count' }],
      });
      const types: string[] = [];
      let cost: number | undefined;
      stream.on('streamEvent', (event) => {
        types.push(event.type);
        if (event.type === 'message_delta') cost = costOf(event);
      });
      const message = await stream.finalMessage();
      expect(message.content).toEqual([
        expect.objectContaining({ type: 'text', text: 'one two three' }),
      ]);
      expect(message.stop_reason).toBe('end_turn');
      expect(message.usage.output_tokens).toBeGreaterThan(0);
      expect(types[0]).toBe('message_start');
      expect(types.slice(-2)).toEqual(['message_delta', 'message_stop']);
      expect(cost).toBeGreaterThan(0);
      expect(await bed.consumptions(u.user.id)).toHaveLength(1);
      expect((await ledgerOf(bed.t, u.user.id)).credits).toBe(before.credits - cost!);
    },
  );

  it('sends an image block to the model as an image', async () => {
    const u = await newUser(bed.t);
    const { key } = await bed.keyFor(u);
    const message = await bed.client(key).messages.create({
      model: 'claude-haiku-4-5',
      max_tokens: 50,
      messages: [
        {
          role: 'user',
          content: [
            {
              type: 'image',
              source: {
                type: 'base64',
                media_type: 'image/png',
                data: PNG_BYTES.toString('base64'),
              },
            },
            { type: 'text', text: 'What is this?' },
          ],
        },
      ],
    });
    expect(message.content[0]).toEqual(expect.objectContaining({ type: 'text' }));
    const sent = bed.p.anthropic.requests[0].body.messages.at(-1).content;
    expect(sent).toEqual(
      expect.arrayContaining([
        expect.objectContaining({
          type: 'image',
          source: expect.objectContaining({ media_type: 'image/png' }),
        }),
      ]),
    );
  });

  it('counts input tokens with the hold estimate, charging nothing and calling no provider', async () => {
    const u = await newUser(bed.t);
    const { key } = await bed.keyFor(u);
    const before = await ledgerOf(bed.t, u.user.id);
    const counted = await bed.client(key).messages.countTokens({
      model: 'claude-haiku-4-5',
      system: 'Be brief.', // 9 characters
      messages: [{ role: 'user', content: 'Say hello, please.' }], // 18 characters
    });
    expect(counted).toEqual({ input_tokens: Math.ceil(27 / 4) });
    // Tools count as the hold counts them: the JSON of the client tools, ceil(characters / 4).
    const tool = { name: 'f', description: '', parameters: { type: 'object' } };
    const withTools = await bed.client(key).messages.countTokens({
      model: 'claude-haiku-4-5',
      system: 'Be brief.',
      messages: [{ role: 'user', content: 'Say hello, please.' }],
      tools: [{ name: 'f', input_schema: { type: 'object' } }],
    });
    expect(withTools.input_tokens).toBe(
      Math.ceil(27 / 4) + Math.ceil(JSON.stringify({ tools: [tool] }).length / 4),
    );
    expect(bed.p.anthropic.requests).toHaveLength(0);
    expect(await ledgerOf(bed.t, u.user.id)).toEqual(before);
  });

  it('takes thinking on a reasoning model', async () => {
    const u = await newUser(bed.t);
    const { key } = await bed.keyFor(u);
    const message = await bed.client(key).messages.create({
      model: 'gpt-5-mini',
      max_tokens: 2000,
      thinking: { type: 'enabled', budget_tokens: 1024 },
      messages: [{ role: 'user', content: 'Think.' }],
    });
    expect(message.stop_reason).toBe('end_turn');
  });
});
