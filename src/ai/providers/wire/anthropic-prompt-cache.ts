// Anthropic prompt caching (ANTHROPIC_PROMPT_CACHE): cache breakpoints on our request body.
import type Anthropic from '@anthropic-ai/sdk';

type MessageParam = Anthropic.Messages.MessageParam;
type ContentBlockParam = Anthropic.Messages.ContentBlockParam;
type TextBlockParam = Anthropic.Messages.TextBlockParam;

const EPHEMERAL = { type: 'ephemeral' as const };

/**
 * `body` with `cache_control: {type: "ephemeral"}` on the system prompt and on the last block of
 * the conversation prefix, the message before the new (last) turn: the next request of the same
 * chat then reads everything up to there from Anthropic's cache (billed at the cache-read price)
 * instead of as fresh input, and this one writes it (the cache-write price). Two of the four
 * breakpoints Anthropic allows. A prefix block that cannot carry one (an empty text, a thinking
 * block) is left alone; prompts shorter than the model's minimum are simply not cached upstream.
 * The messages are copied, never changed in place.
 */
export function withPromptCache<
  B extends { system?: string | TextBlockParam[]; messages: MessageParam[] },
>(body: B): B {
  const system =
    typeof body.system === 'string' && body.system
      ? [{ type: 'text' as const, text: body.system, cache_control: EPHEMERAL }]
      : body.system;
  const messages = [...body.messages];
  const at = messages.length - 2;
  if (at >= 0) messages[at] = withBreakpoint(messages[at]);
  return { ...body, ...(system ? { system } : {}), messages };
}

/** `message` with a cache breakpoint on its last block, when that block can carry one. */
function withBreakpoint(message: MessageParam): MessageParam {
  if (typeof message.content === 'string') {
    if (!message.content) return message;
    return {
      ...message,
      content: [{ type: 'text', text: message.content, cache_control: EPHEMERAL }],
    };
  }
  const blocks = [...message.content];
  const last = blocks[blocks.length - 1];
  if (!last || !canCarry(last)) return message;
  blocks[blocks.length - 1] = { ...last, cache_control: EPHEMERAL } as ContentBlockParam;
  return { ...message, content: blocks } as MessageParam;
}

/** Thinking blocks take no `cache_control`, nor does an empty text block. */
function canCarry(block: ContentBlockParam): boolean {
  if (block.type === 'thinking' || block.type === 'redacted_thinking') return false;
  return block.type !== 'text' || !!block.text;
}
