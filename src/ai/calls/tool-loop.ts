import type { ToolResult } from '../../plugins/tool.types';
import type { Admission } from '../ai.types';
import { DEFAULT_MAX_TOOL_STEPS } from '../dto/generate.dto';
import type { ProviderMessage } from '../providers/model-provider';
import type { ServerTiming } from './server-timing';
import type { TokenUsage, ToolCall, ToolStep } from '../../models/call.types';

/** What the loop needs of AiService: one metered streamed call, and the next step's admission. */
export interface MeteredCalls {
  streamAdmitted(
    a: Admission,
    timing: ServerTiming | undefined,
    hooks: { onStart?: (modelId: string) => void; onText?: (delta: string) => void },
  ): Promise<{
    modelId: string;
    text: string;
    usage: TokenUsage;
    cost: number;
    interruption?: unknown;
    toolCalls?: ToolCall[];
  }>;
  admitNext(a: Admission, messages: ProviderMessage[], steps: ToolStep[]): Promise<Admission>;
}

export interface LoopHooks {
  /** Once, when the first model call starts answering (`modelId`: the model answering). */
  onStart?: (modelId: string) => void;
  onText?: (delta: string) => void;
  onToolCall?: (call: ToolCall) => void;
  onToolResult?: (call: ToolCall, result: ToolResult) => void;
}

/** How a tool loop ended; `usage` and `cost` are summed over its model calls. */
export interface LoopOutcome {
  /** The model that answered the last call (a fallback's id when one did). */
  modelId?: string;
  /** The text of every call, in order (what the deltas showed). */
  text: string;
  usage: TokenUsage;
  cost: number;
  modelCalls: number;
  stopReason: 'stop' | 'max_tool_steps';
  /** Set when a call was cut (client abort, upstream failure) or the client left during tools. */
  interruption?: unknown;
}

/**
 * The tool loop: call the model; while it asks for tools, run them, and call it
 * again with their results, at most `maxToolSteps` calls. Every call is admitted (its own hold,
 * limits checked again), streamed, settled (its own CONSUMPTION entry) and saved through the
 * one money path of AiService; the tools' results are saved with the next call. A cut call ends
 * the loop charged for what it produced; a client gone while tools run stops before the next
 * call. Throws what `admitNext` throws (INSUFFICIENT_CREDITS, DAILY_LIMIT_REACHED, ...) and a
 * later call's provider error before its first chunk; earlier calls stay charged and saved.
 */
export async function runToolLoop(
  ai: MeteredCalls,
  first: Admission,
  timing: ServerTiming | undefined,
  hooks: LoopHooks,
): Promise<LoopOutcome> {
  const max = first.dto.maxToolSteps ?? DEFAULT_MAX_TOOL_STEPS;
  const signal = first.request.signal;
  const out: LoopOutcome = {
    text: '',
    usage: { promptTokens: 0, completionTokens: 0 },
    cost: 0,
    modelCalls: 0,
    stopReason: 'stop',
  };
  let started = false;
  let a = first;
  for (;;) {
    const reply = await ai.streamAdmitted(a, timing, {
      onStart: (modelId) => {
        if (!started) hooks.onStart?.(modelId);
        started = true;
      },
      onText: hooks.onText,
    });
    out.modelId = reply.modelId;
    out.text += reply.text;
    out.usage = addUsage(out.usage, reply.usage);
    out.cost += reply.cost;
    out.modelCalls++;
    if (reply.interruption !== undefined) return { ...out, interruption: reply.interruption };
    const calls = reply.toolCalls ?? [];
    if (!calls.length) return out;
    if (out.modelCalls >= max) return { ...out, stopReason: 'max_tool_steps' };

    const messages: ProviderMessage[] = [
      ...a.request.messages,
      { role: 'assistant', content: reply.text, toolCalls: calls },
    ];
    const steps: ToolStep[] = [];
    for (const call of calls) {
      hooks.onToolCall?.(call);
      const result = await a.toolBox!.call(call, signal);
      hooks.onToolResult?.(call, result);
      const tool = { id: call.id, name: call.name, ok: result.ok };
      messages.push({ role: 'tool', content: result.content, toolCall: tool });
      steps.push({ role: 'TOOL', content: result.content, tool });
      if (signal?.aborted) return { ...out, interruption: signal.reason ?? 'aborted' };
    }
    a = await ai.admitNext(a, messages, steps);
  }
}

function addUsage(a: TokenUsage, b: TokenUsage): TokenUsage {
  // A part (reasoning, cache reads, cache writes) is summed when either call reported it.
  const part = (k: 'reasoningTokens' | 'cachedTokens' | 'cacheWriteTokens') =>
    a[k] !== undefined || b[k] !== undefined ? { [k]: (a[k] ?? 0) + (b[k] ?? 0) } : {};
  return {
    promptTokens: a.promptTokens + b.promptTokens,
    completionTokens: a.completionTokens + b.completionTokens,
    ...part('reasoningTokens'),
    ...part('cachedTokens'),
    ...part('cacheWriteTokens'),
  };
}
