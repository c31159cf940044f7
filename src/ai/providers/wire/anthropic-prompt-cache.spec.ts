import { withPromptCache } from './anthropic-prompt-cache';

const EPHEMERAL = { type: 'ephemeral' };

describe('withPromptCache', () => {
  it('marks the system prompt and the last block before the new turn', () => {
    const body = {
      model: 'claude-haiku-4-5',
      system: 'Be brief.',
      messages: [
        { role: 'user' as const, content: 'One' },
        {
          role: 'assistant' as const,
          content: [
            { type: 'text' as const, text: 'Calling' },
            { type: 'tool_use' as const, id: 't1', name: 'f', input: {} },
          ],
        },
        {
          role: 'user' as const,
          content: [{ type: 'tool_result' as const, tool_use_id: 't1', content: 'ok' }],
        },
      ],
    };
    const out = withPromptCache(body);
    expect(out.system).toEqual([{ type: 'text', text: 'Be brief.', cache_control: EPHEMERAL }]);
    expect(out.messages[1].content).toEqual([
      { type: 'text', text: 'Calling' },
      { type: 'tool_use', id: 't1', name: 'f', input: {}, cache_control: EPHEMERAL },
    ]);
    expect(out.messages[0]).toEqual(body.messages[0]);
    expect(out.messages[2]).toEqual(body.messages[2]);
    // The request's own messages are not changed.
    expect(JSON.stringify(body)).not.toContain('cache_control');
  });

  it('turns a text prefix into a marked text block', () => {
    const out = withPromptCache({
      messages: [
        { role: 'user' as const, content: 'Earlier' },
        { role: 'user' as const, content: 'Now' },
      ],
    });
    expect(out.messages[0].content).toEqual([
      { type: 'text', text: 'Earlier', cache_control: EPHEMERAL },
    ]);
    expect(out.messages[1].content).toBe('Now');
    expect('system' in out).toBe(false);
  });

  it('leaves a single turn, an empty text and a thinking block unmarked', () => {
    const single = { messages: [{ role: 'user' as const, content: 'Only' }] };
    expect(withPromptCache(single)).toEqual(single);
    const empty = {
      messages: [
        { role: 'assistant' as const, content: '' },
        { role: 'user' as const, content: 'Now' },
      ],
    };
    expect(withPromptCache(empty)).toEqual(empty);
    const thinking = {
      messages: [
        {
          role: 'assistant' as const,
          content: [{ type: 'thinking' as const, thinking: 'hm', signature: 's' }],
        },
        { role: 'user' as const, content: 'Now' },
      ],
    };
    expect(withPromptCache(thinking)).toEqual(thinking);
  });
});
