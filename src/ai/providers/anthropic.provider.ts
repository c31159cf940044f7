import Anthropic from '@anthropic-ai/sdk';
import { Inject, Injectable } from '@nestjs/common';
import type { ConfigType } from '@nestjs/config';
import { sharedConfig } from '../../config/shared.config';
import { aiConfig } from '../ai.config';
import type { UpstreamTarget } from '../../upstreams/upstream-router.types';
import type { GenerateRequest, GenerateResult, ModelProvider, StreamChunk } from './model-provider';
import { incompleteStream, notConfigured, toProviderError } from './sdk-errors';
import { NO_KEY, UpstreamClients } from './upstream-clients';
import { type AnthropicInputUsage, normaliseAnthropicUsage, usageFallback } from './usage';
import {
  ANSWER_TOOL,
  AnthropicToolCallAssembler,
  anthropicClientToolFields,
  anthropicFinishReason,
  anthropicMessages,
  anthropicToolCalls,
  anthropicTools,
} from './wire/anthropic-upstream';
import { withPromptCache } from './wire/anthropic-prompt-cache';

const ID = 'anthropic';
const LABEL = 'Anthropic';

/**
 * Adapter over the official `@anthropic-ai/sdk` (Messages API). ANTHROPIC_BASE_URL replaces the
 * SDK's host (without `/v1`). No SDK retries. SDK 1.12 has no `temperature`/`top_p` or penalty
 * params: the catalogue marks them unsupported for Anthropic, so admission refuses them (400
 * UNSUPPORTED_PARAMETER) and they never reach this adapter. A call given an upstream target goes
 * to that upstream with its key and model id.
 */
@Injectable()
export class AnthropicProvider implements ModelProvider {
  private readonly client: Anthropic | undefined;
  /** ANTHROPIC_PROMPT_CACHE: cache breakpoints on the system prompt and the prefix. */
  private readonly promptCache: boolean;

  private readonly upstreams = new UpstreamClients(
    (t) =>
      new Anthropic({
        apiKey: t.apiKey ?? NO_KEY,
        baseURL: t.baseUrl,
        maxRetries: 0,
        timeout: 120_000,
      }),
  );

  constructor(
    @Inject(sharedConfig.KEY) shared: ConfigType<typeof sharedConfig>,
    @Inject(aiConfig.KEY) ai: ConfigType<typeof aiConfig>,
  ) {
    this.promptCache = ai.anthropicPromptCache;
    const { apiKey, baseUrl } = shared.providers.anthropic;
    // An explicit apiKey also stops the SDK from looking for credentials in env or on disk.
    this.client = apiKey
      ? new Anthropic({ apiKey, baseURL: baseUrl, maxRetries: 0, timeout: 120_000 })
      : undefined;
  }

  /**
   * One whole reply: the text blocks joined, usage from `message.usage`. Throws ProviderError
   * (upstream status, Retry-After, aborted).
   */
  async generate(req: GenerateRequest, target?: UpstreamTarget): Promise<GenerateResult> {
    const client = this.clientFor(target);
    try {
      const message = await client.messages.create(
        { ...params(req, target, this.promptCache), stream: false },
        { signal: req.signal },
      );
      // A structured answer is the input of the answer tool: it is the reply's text.
      const text = message.content
        .flatMap((block) =>
          block.type === 'text'
            ? [block.text]
            : block.type === 'tool_use' && block.name === ANSWER_TOOL
              ? [JSON.stringify(block.input)]
              : [],
        )
        .join('');
      const toolCalls = anthropicToolCalls(message.content).filter((c) => c.name !== ANSWER_TOOL);
      return {
        text,
        ...(toolCalls.length ? { toolCalls } : {}),
        finishReason: anthropicFinishReason(message.stop_reason, toolCalls.length),
        usage: normaliseAnthropicUsage(
          message.usage,
          message.usage?.output_tokens,
          usageFallback(req.messages, text),
          message.usage?.output_tokens_details?.thinking_tokens,
        ),
      };
    } catch (err) {
      throw toError(err, req.signal);
    }
  }

  /**
   * Streams raw Messages events: `{text}` per `content_block_delta` text delta, `{toolCall}` at
   * the `content_block_stop` of each `tool_use` block, and `{usage}` at
   * each `message_delta` (input tokens from `message_start`, output tokens the cumulative
   * `message_delta.usage.output_tokens`, never summed). Throws ProviderError, from the first
   * `next()` when the request fails, and when the stream breaks or ends before `message_stop`.
   */
  async *stream(req: GenerateRequest, target?: UpstreamTarget): AsyncGenerator<StreamChunk> {
    const client = this.clientFor(target);
    let text = '';
    let input: AnthropicInputUsage | undefined;
    let outputTokens: number | undefined;
    let thinkingTokens: number | undefined;
    let stopped = false;
    let stopReason: string | null | undefined;
    let clientCalls = 0;
    /** The index of the answer tool's block: its input JSON streams as the reply's text. */
    let answerBlock: number | undefined;
    const tools = new AnthropicToolCallAssembler();
    try {
      const stream = await client.messages.create(
        { ...params(req, target, this.promptCache), stream: true },
        { signal: req.signal },
      );
      for await (const event of stream) {
        switch (event.type) {
          case 'message_start':
            input = event.message.usage;
            break;
          case 'content_block_start':
            if (event.content_block.type === 'tool_use' && event.content_block.name === ANSWER_TOOL)
              answerBlock = event.index;
            else tools.start(event.index, event.content_block);
            break;
          case 'content_block_delta':
            if (event.delta.type === 'text_delta' && event.delta.text) {
              text += event.delta.text;
              yield { text: event.delta.text };
            } else if (event.delta.type === 'input_json_delta') {
              if (event.index === answerBlock && event.delta.partial_json) {
                text += event.delta.partial_json;
                yield { text: event.delta.partial_json };
              } else tools.delta(event.index, event.delta.partial_json);
            }
            break;
          case 'content_block_stop': {
            const toolCall = tools.stop(event.index);
            if (toolCall) {
              clientCalls++;
              yield { toolCall };
            }
            break;
          }
          case 'message_delta': {
            const u = event.usage;
            // Newer API versions repeat cumulative input counts here; they supersede message_start.
            if (u.input_tokens != null) {
              input = {
                input_tokens: u.input_tokens,
                cache_creation_input_tokens:
                  u.cache_creation_input_tokens ?? input?.cache_creation_input_tokens,
                // message_delta carries no breakdown by lifetime: message_start's stands.
                cache_creation: input?.cache_creation,
                cache_read_input_tokens:
                  u.cache_read_input_tokens ?? input?.cache_read_input_tokens,
              };
            }
            stopReason = event.delta.stop_reason ?? stopReason;
            outputTokens = u.output_tokens;
            thinkingTokens = u.output_tokens_details?.thinking_tokens ?? thinkingTokens;
            const fallback = usageFallback(req.messages, text);
            yield {
              usage: normaliseAnthropicUsage(input, outputTokens, fallback, thinkingTokens),
              ...(stopReason
                ? { finishReason: anthropicFinishReason(stopReason, clientCalls) }
                : {}),
            };
            break;
          }
          case 'message_stop':
            stopped = true;
            break;
        }
      }
    } catch (err) {
      throw toError(err, req.signal);
    }
    if (!stopped) throw incompleteStream(ID, LABEL, req.signal);
    if (outputTokens === undefined) {
      const fallback = usageFallback(req.messages, text);
      yield { usage: normaliseAnthropicUsage(input, undefined, fallback) };
    }
  }

  private requireClient(): Anthropic {
    if (!this.client) throw notConfigured(ID, LABEL);
    return this.client;
  }

  /** The target's client (cached per upstream and version), else the environment's. */
  private clientFor(target: UpstreamTarget | undefined): Anthropic {
    return target ? this.upstreams.of(target) : this.requireClient();
  }
}

/**
 * Request body shared by generate and stream: system messages joined into `system`, `stop` as
 * `stop_sequences`, the client tools' rules and a response format as anthropicClientToolFields
 * sets them. A reasoning budget turns on extended thinking (`budget_tokens`), and since
 * thinking counts toward `max_tokens`, that becomes maxTokens + the budget. With `promptCache`,
 * the system prompt and the conversation prefix carry cache breakpoints (withPromptCache).
 */
function params(req: GenerateRequest, target: UpstreamTarget | undefined, promptCache: boolean) {
  const system = req.messages
    .filter((m) => m.role === 'system')
    .map((m) => m.content)
    .join('\n\n');
  const body = {
    model: target?.upstreamModel ?? req.model,
    max_tokens: req.maxTokens + (req.reasoningBudget ?? 0),
    ...(req.reasoningBudget
      ? { thinking: { type: 'enabled' as const, budget_tokens: req.reasoningBudget } }
      : {}),
    ...(req.stop?.length ? { stop_sequences: req.stop } : {}),
    ...(system ? { system } : {}),
    ...(req.clientTools || req.responseFormat
      ? anthropicClientToolFields(
          req.tools,
          req.clientTools,
          req.responseFormat,
          !!req.reasoningBudget,
        )
      : req.tools?.length
        ? { tools: anthropicTools(req.tools) }
        : {}),
    messages: anthropicMessages(req.messages),
  };
  return promptCache ? withPromptCache(body) : body;
}

function toError(err: unknown, signal: AbortSignal | undefined) {
  const api = err instanceof Anthropic.APIError ? err : undefined;
  return toProviderError(ID, LABEL, err, signal, {
    status: api?.status,
    retryAfter: api?.headers?.get('retry-after'),
    userAbort: err instanceof Anthropic.APIUserAbortError,
    timedOut: err instanceof Anthropic.APIConnectionTimeoutError,
  });
}
