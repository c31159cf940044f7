import { ledgerOf, newUser } from '../../support/factories';
import { useMessagesBed } from '../../support/messages-bed';
import { parseSse } from '../../support/sse';

/**
 * `/v1/messages` as Claude Code (2.1) calls it: `x-api-key`, its beta headers, adaptive
 * thinking, `context_management`, `output_config`, a `system` turn inside `messages`, cached
 * system blocks and deferred tools. The request's shape is the one Claude Code sends (read off
 * its requests to a capturing server), its texts shortened.
 */
describe('Anthropic-compatible /v1/messages: Claude Code', () => {
  const bed = useMessagesBed();

  const HEADERS = {
    'content-type': 'application/json',
    'anthropic-version': '2023-06-01',
    'anthropic-beta':
      'claude-code-20250219,interleaved-thinking-2025-05-14,context-management-2025-06-27',
    'x-app': 'cli',
  };
  const TOOLS = [
    {
      name: 'Bash',
      description: 'Runs a shell command',
      input_schema: {
        type: 'object',
        properties: { command: { type: 'string' }, description: { type: 'string' } },
        required: ['command'],
      },
    },
    {
      name: 'DeferredToolPlaceholder',
      description: 'Tools loaded on demand',
      input_schema: { type: 'object', properties: {} },
      defer_loading: true,
    },
  ];
  /** One turn of Claude Code's conversation, as it frames every request. */
  const turn = (messages: object[]) => ({
    model: 'gpt-4o',
    max_tokens: 4096,
    stream: true,
    system: [
      { type: 'text', text: 'x-anthropic-billing-header: cc_version=2.1' },
      { type: 'text', text: 'You are a coding agent.', cache_control: { type: 'ephemeral' } },
    ],
    messages,
    tools: TOOLS,
    metadata: { user_id: JSON.stringify({ device_id: 'd', session_id: 's' }) },
    thinking: { type: 'adaptive', display: 'omitted' },
    context_management: { edits: [{ type: 'clear_thinking_20251015', keep: 'all' }] },
    output_config: { effort: 'high' },
  });
  const ask = { role: 'user', content: [{ type: 'text', text: 'Run echo hi with Bash.' }] };
  const reminder = {
    role: 'system',
    content: [{ type: 'text', text: 'Be brief.', cache_control: { type: 'ephemeral' } }],
  };

  it('holds a conversation with a tool call, each call metered, the system turn kept in place', async () => {
    const u = await newUser(bed.t, { credits: 100_000 });
    const { key } = await bed.keyFor(u);
    bed.p.openai.script = [
      { toolCalls: [{ id: 'call_1', name: 'Bash', arguments: { command: 'echo hi' } }] },
      { text: 'It printed hi.' },
    ];
    const send = async (messages: object[]) => {
      const res = await bed.t.http
        .post('/v1/messages?beta=true')
        .set({ ...HEADERS, 'x-api-key': key })
        .send(turn(messages));
      expect([res.status, res.headers['content-type']]).toEqual([
        200,
        'text/event-stream; charset=utf-8',
      ]);
      return parseSse(res.text).events.map(([event, data]) => ({ event, data }));
    };

    const first = await send([ask, reminder]);
    const use = first.find((e) => e.data.content_block?.type === 'tool_use')?.data.content_block;
    expect(use).toEqual(expect.objectContaining({ id: 'call_1', name: 'Bash' }));
    const stop = first.find((e) => e.event === 'message_delta')?.data.delta.stop_reason;
    expect(stop).toBe('tool_use');
    // The system turn reached the model where the client put it, after the question.
    const sent = bed.p.openai.requests[0].body as { messages: { role: string }[] };
    expect(sent.messages.map((m) => m.role)).toEqual(['system', 'user', 'system']);

    const second = await send([
      ask,
      reminder,
      {
        role: 'assistant',
        content: [{ type: 'tool_use', id: 'call_1', name: 'Bash', input: { command: 'echo hi' } }],
      },
      { role: 'user', content: [{ type: 'tool_result', tool_use_id: 'call_1', content: 'hi' }] },
    ]);
    const text = second
      .filter((e) => e.data.delta?.type === 'text_delta')
      .map((e) => e.data.delta.text)
      .join('');
    expect(text).toBe('It printed hi.');
    expect(second.at(-1)?.event).toBe('message_stop');

    // Two model calls, two CONSUMPTION entries, together what the two answers reported.
    const entries = await bed.consumptions(u.user.id);
    const reported = [first, second].map(
      (events) => events.find((e) => e.event === 'message_delta')?.data.cost as number,
    );
    expect(entries.map((e) => -e.amount)).toEqual(reported);
    const books = await ledgerOf(bed.t, u.user.id);
    expect(books.credits).toBe(books.ledgerSum);
    expect(await bed.openHolds()).toBe(0);
  });

  it('still refuses an explicit thinking request to a model that does not reason', async () => {
    const u = await newUser(bed.t, { credits: 100_000 });
    const { key } = await bed.keyFor(u);
    const res = await bed.t.http
      .post('/v1/messages')
      .set({ ...HEADERS, 'x-api-key': key })
      .send({ ...turn([ask]), thinking: { type: 'enabled', budget_tokens: 2048 } });
    expect(res.status).toBe(400);
    expect(res.body.error.type).toBe('invalid_request_error');
    expect(bed.p.openai.requests).toHaveLength(0);
  });
});
