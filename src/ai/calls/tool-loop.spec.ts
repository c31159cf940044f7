import type { ToolResult } from '../../plugins/tool.types';
import type { Admission } from '../ai.types';
import { type MeteredCalls, runToolLoop } from './tool-loop';
import type { TokenUsage, ToolCall } from '../../models/call.types';

/** One scripted model call: what it says, the tools it asks for, and whether it is cut. */
interface Step {
  text: string;
  calls?: ToolCall[];
  cut?: boolean;
}

const usage: TokenUsage = { promptTokens: 10, completionTokens: 5 };
const call = (id: string): ToolCall => ({ id, name: 'calculator', arguments: { expression: id } });

/**
 * The loop over our own MeteredCalls port (the real one is AiService, covered end to end in
 * test/e2e/ai-tools): records which admissions it was given and what it saved.
 */
function harness(steps: Step[], opts: { maxToolSteps?: number; abortDuringTools?: boolean } = {}) {
  const controller = new AbortController();
  const admitted: { messages: number; steps: number }[] = [];
  const ran: string[] = [];
  const first = {
    dto: { maxToolSteps: opts.maxToolSteps },
    request: { messages: [{ role: 'user', content: 'go' }], signal: controller.signal },
    toolBox: {
      definitions: [],
      call: async (c: ToolCall): Promise<ToolResult> => {
        ran.push(c.id);
        if (opts.abortDuringTools) controller.abort();
        return { ok: c.id !== 'bad', content: `result ${c.id}`, summary: c.id };
      },
    },
  } as unknown as Admission;
  let at = 0;
  const ai: MeteredCalls = {
    streamAdmitted: async (_a, _t, hooks) => {
      const step = steps[at++];
      hooks.onStart?.('m');
      hooks.onText?.(step.text);
      return {
        modelId: 'm',
        text: step.text,
        usage,
        cost: 3,
        toolCalls: step.cut ? [] : step.calls,
        interruption: step.cut ? new Error('cut') : undefined,
      };
    },
    admitNext: async (a, messages, saved) => {
      admitted.push({ messages: messages.length, steps: saved.length });
      return { ...a, request: { ...a.request, messages } };
    },
  };
  return { ai, first, admitted, ran, calls: () => at };
}

describe('runToolLoop', () => {
  it('calls, runs the tools, calls again with their results, and sums usage and cost', async () => {
    const h = harness([
      { text: 'Let me see. ', calls: [call('a'), call('bad')] },
      { text: 'Done.' },
    ]);
    const events: string[] = [];
    const out = await runToolLoop(h.ai, h.first, undefined, {
      onStart: () => events.push('start'),
      onToolCall: (c) => events.push(`call ${c.id}`),
      onToolResult: (c, r) => events.push(`result ${c.id} ${r.ok}`),
    });
    expect(out).toEqual({
      modelId: 'm',
      text: 'Let me see. Done.',
      usage: { promptTokens: 20, completionTokens: 10 },
      cost: 6,
      modelCalls: 2,
      stopReason: 'stop',
    });
    expect(events).toEqual(['start', 'call a', 'result a true', 'call bad', 'result bad false']);
    // The second call sees: user, assistant with its calls, two tool results; both to save.
    expect(h.admitted).toEqual([{ messages: 4, steps: 2 }]);
  });

  it('stops at maxToolSteps model calls, running no tools for the last', async () => {
    const h = harness(
      [1, 2, 3].map((i) => ({ text: '', calls: [call(`c${i}`)] })),
      { maxToolSteps: 2 },
    );
    const out = await runToolLoop(h.ai, h.first, undefined, {});
    expect(out).toEqual(expect.objectContaining({ modelCalls: 2, stopReason: 'max_tool_steps' }));
    expect(h.ran).toEqual(['c1']);
    expect(h.calls()).toBe(2);
  });

  it('a cut call ends the loop with its interruption; no tools run', async () => {
    const h = harness([{ text: 'Par', calls: [call('a')], cut: true }]);
    const out = await runToolLoop(h.ai, h.first, undefined, {});
    expect(out.interruption).toBeInstanceOf(Error);
    expect(out.cost).toBe(3);
    expect(h.ran).toEqual([]);
    expect(h.admitted).toEqual([]);
  });

  it('a client gone while tools run: no further model call', async () => {
    const h = harness([{ text: '', calls: [call('a'), call('b')] }, { text: 'never' }], {
      abortDuringTools: true,
    });
    const out = await runToolLoop(h.ai, h.first, undefined, {});
    expect(out.interruption).toBeDefined();
    expect(h.ran).toEqual(['a']);
    expect(h.calls()).toBe(1);
    expect(h.admitted).toEqual([]);
  });
});
