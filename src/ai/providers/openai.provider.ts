import { Inject, Injectable } from '@nestjs/common';
import type { ConfigType } from '@nestjs/config';
import { sharedConfig } from '../../config/shared.config';
import OpenAI from 'openai';
import type { UpstreamTarget } from '../../upstreams/upstream-router.types';
import type {
  EmbeddingProvider,
  EmbedRequest,
  Embeddings,
  GenerateRequest,
  GenerateResult,
  ModelProvider,
  StreamChunk,
} from './model-provider';
import { incompleteStream, notConfigured, toProviderError } from './sdk-errors';
import { NO_KEY, UpstreamClients } from './upstream-clients';
import { normaliseOpenAiUsage, usageFallback } from './usage';
import {
  OpenAiToolCallAssembler,
  openAiClientToolFields,
  openAiFinishReason,
  openAiMessages,
  openAiToolCalls,
  openAiTools,
} from './wire/openai-upstream';

const ID = 'openai';
const LABEL = 'OpenAI';

/**
 * Adapter over the official `openai` SDK (chat completions). OPENAI_BASE_URL replaces the
 * SDK's host (it must include `/v1`), so any OpenAI-compatible server works. No SDK retries:
 * a failed call is not charged, and retrying is the caller's decision. A call given an upstream
 * target (`openai` or `openai-compatible`) goes to that upstream with its key and model id.
 */
@Injectable()
export class OpenAiProvider implements ModelProvider, EmbeddingProvider {
  private readonly client: OpenAI | undefined;

  private readonly upstreams = new UpstreamClients(
    (t) =>
      new OpenAI({
        apiKey: t.apiKey ?? NO_KEY,
        baseURL: t.baseUrl,
        maxRetries: 0,
        timeout: 120_000,
      }),
  );

  constructor(@Inject(sharedConfig.KEY) shared: ConfigType<typeof sharedConfig>) {
    const { apiKey, baseUrl } = shared.providers.openai;
    this.client = apiKey
      ? new OpenAI({ apiKey, baseURL: baseUrl, maxRetries: 0, timeout: 120_000 })
      : undefined;
  }

  /**
   * One whole reply. Usage is the response's `usage`, or ceil(chars / 4) when a compatible
   * server sends none. Throws ProviderError (upstream status, Retry-After, aborted).
   */
  async generate(req: GenerateRequest, target?: UpstreamTarget): Promise<GenerateResult> {
    const client = this.clientFor(target);
    try {
      const completion = await client.chat.completions.create(
        { ...this.params(req, target), stream: false },
        { signal: req.signal },
      );
      const message = completion.choices[0]?.message;
      const text = message?.content ?? '';
      const toolCalls = openAiToolCalls(message?.tool_calls);
      return {
        text,
        usage: normaliseOpenAiUsage(completion.usage, usageFallback(req.messages, text)),
        ...(toolCalls.length ? { toolCalls } : {}),
        finishReason: openAiFinishReason(completion.choices[0]?.finish_reason),
      };
    } catch (err) {
      throw toError(err, req.signal);
    }
  }

  /**
   * Streams with `stream_options.include_usage`: `{text}` per content delta, `{toolCall}` per
   * assembled tool call once the choice finishes, then `{usage}` from the last chunk (empty
   * `choices`). A server that sends no usage chunk gets an estimated
   * `{usage}` at the end. Throws ProviderError, from the first `next()` when the request fails,
   * and when the stream breaks or ends without a `finish_reason`.
   */
  async *stream(req: GenerateRequest, target?: UpstreamTarget): AsyncGenerator<StreamChunk> {
    const client = this.clientFor(target);
    let text = '';
    let finished = false;
    let usageSeen = false;
    const tools = new OpenAiToolCallAssembler();
    try {
      const stream = await client.chat.completions.create(
        { ...this.params(req, target), stream: true, stream_options: { include_usage: true } },
        { signal: req.signal },
      );
      for await (const chunk of stream) {
        const choice = chunk.choices[0];
        const delta = choice?.delta?.content;
        tools.add(choice?.delta?.tool_calls);
        if (delta) {
          text += delta;
          yield { text: delta };
        }
        if (choice?.finish_reason) {
          finished = true;
          for (const toolCall of tools.done()) yield { toolCall };
          yield { finishReason: openAiFinishReason(choice.finish_reason) };
        }
        if (chunk.usage) {
          usageSeen = true;
          yield { usage: normaliseOpenAiUsage(chunk.usage, usageFallback(req.messages, text)) };
        }
      }
    } catch (err) {
      throw toError(err, req.signal);
    }
    if (!finished) throw incompleteStream(ID, LABEL, req.signal);
    if (!usageSeen) {
      yield { usage: normaliseOpenAiUsage(undefined, usageFallback(req.messages, text)) };
    }
  }

  /**
   * `embeddings.create` with `encoding_format: float` (the SDK would otherwise ask for base64):
   * one vector per text, in input order, and `usage.prompt_tokens` when it is a count, from
   * `target` (as `generate`) or the environment's client. Throws ProviderError.
   */
  async embed(req: EmbedRequest, target?: UpstreamTarget): Promise<Embeddings> {
    const client = this.clientFor(target);
    try {
      const response = await client.embeddings.create(
        {
          model: target?.upstreamModel ?? req.model,
          input: req.texts,
          dimensions: req.dimensions,
          encoding_format: 'float',
        },
        { signal: req.signal },
      );
      const vectors = [...response.data].sort((a, b) => a.index - b.index).map((d) => d.embedding);
      const reported = response.usage?.prompt_tokens;
      return Number.isInteger(reported) && reported >= 0
        ? { vectors, promptTokens: reported }
        : { vectors };
    } catch (err) {
      throw toError(err, req.signal);
    }
  }

  private requireClient(): OpenAI {
    if (!this.client) throw notConfigured(ID, LABEL);
    return this.client;
  }

  /** The target's client (cached per upstream and version), else the environment's. */
  private clientFor(target: UpstreamTarget | undefined): OpenAI {
    return target ? this.upstreams.of(target) : this.requireClient();
  }

  /**
   * The body fields shared by generate and stream; undefined fields are not sent. Reasoning
   * models take `max_completion_tokens` (it covers reasoning and visible tokens, so it is
   * maxTokens + the reasoning budget) and refuse `max_tokens`; the others keep `max_tokens`.
   */
  private params(req: GenerateRequest, target: UpstreamTarget | undefined) {
    return {
      model: target?.upstreamModel ?? req.model,
      messages: openAiMessages(req.messages),
      tools: openAiTools(req.tools),
      ...openAiClientToolFields(req.clientTools, req.responseFormat),
      ...(req.reasoningBudget
        ? { max_completion_tokens: req.maxTokens + req.reasoningBudget }
        : { max_tokens: req.maxTokens }),
      temperature: req.temperature,
      top_p: req.topP,
      presence_penalty: req.presencePenalty,
      frequency_penalty: req.frequencyPenalty,
      stop: req.stop,
    };
  }
}

function toError(err: unknown, signal: AbortSignal | undefined) {
  const api = err instanceof OpenAI.APIError ? err : undefined;
  return toProviderError(ID, LABEL, err, signal, {
    status: api?.status,
    retryAfter: api?.headers?.get('retry-after'),
    userAbort: err instanceof OpenAI.APIUserAbortError,
    timedOut: err instanceof OpenAI.APIConnectionTimeoutError,
  });
}
