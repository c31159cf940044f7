import {
  ApiError,
  type Content,
  type GenerateContentParameters,
  type GenerateContentResponse,
  GoogleGenAI,
} from '@google/genai';
import { Inject, Injectable } from '@nestjs/common';
import type { ConfigType } from '@nestjs/config';
import { sharedConfig } from '../../config/shared.config';
import type { UpstreamTarget } from '../../upstreams/upstream-router.types';
import {
  type EmbeddingProvider,
  type EmbedRequest,
  type Embeddings,
  type GenerateRequest,
  type GenerateResult,
  type ModelProvider,
  ProviderError,
  type StreamChunk,
} from './model-provider';
import { incompleteStream, notConfigured, toProviderError } from './sdk-errors';
import { NO_KEY, UpstreamClients } from './upstream-clients';
import { normaliseGeminiUsage, usageFallback } from './usage';
import {
  geminiClientToolConfig,
  geminiContents,
  geminiFinishReason,
  geminiToolCalls,
  geminiTools,
  singleCall,
} from './wire/gemini-upstream';

const ID = 'google';
const LABEL = 'Gemini';
/** Gemini's embedding task for each purpose; a call without a purpose names none. */
const TASK_TYPES = { document: 'RETRIEVAL_DOCUMENT', query: 'RETRIEVAL_QUERY' } as const;

/**
 * Adapter over the official `@google/genai` SDK (Gemini API, stable `v1`, pinned here so that an
 * SDK release changing its default cannot change the wire). GEMINI_BASE_URL replaces the SDK's
 * host (without the version). The backend is pinned to the Gemini API, so the SDK's
 * Vertex environment variables cannot redirect it; SDK retries are off (its default) and so is
 * automatic stream continuation, so one call is exactly one upstream request. A call given an
 * upstream target goes to that upstream with its key and model id.
 */
@Injectable()
export class GoogleProvider implements ModelProvider, EmbeddingProvider {
  private readonly client: GoogleGenAI | undefined;

  private readonly upstreams = new UpstreamClients((t) =>
    geminiClient(t.apiKey ?? NO_KEY, t.baseUrl),
  );

  constructor(@Inject(sharedConfig.KEY) shared: ConfigType<typeof sharedConfig>) {
    const { apiKey, baseUrl } = shared.providers.gemini;
    this.client = apiKey ? geminiClient(apiKey, baseUrl) : undefined;
  }

  /**
   * One whole reply (`models.generateContent`): the first candidate's text parts, usage from
   * `usageMetadata`. Throws ProviderError (upstream status, Retry-After, aborted).
   */
  async generate(req: GenerateRequest, target?: UpstreamTarget): Promise<GenerateResult> {
    const client = this.clientFor(target);
    const upstream = recordRetryAfter();
    try {
      const response = await client.models.generateContent(
        params(req, upstream.fetch, target?.upstreamModel),
      );
      const text = textOf(response);
      const candidate = response.candidates?.[0];
      const toolCalls = singleCall(geminiToolCalls(candidate?.content?.parts), req.clientTools);
      return {
        text,
        ...(toolCalls.length ? { toolCalls } : {}),
        finishReason: geminiFinishReason(candidate?.finishReason, toolCalls.length),
        usage: normaliseGeminiUsage(response.usageMetadata, usageFallback(req.messages, text)),
      };
    } catch (err) {
      throw toError(err, req.signal, upstream.retryAfter);
    }
  }

  /**
   * Streams `models.generateContentStream` (SSE): `{text}` per chunk with text, `{toolCall}` per
   * `functionCall` part, `{usage}` at each
   * chunk with `usageMetadata` (running totals; the last one counts). A stream without any
   * usageMetadata gets an estimated `{usage}` at the end. Throws ProviderError, from the first
   * `next()` when the request fails, and when the stream breaks or ends without a finishReason.
   */
  async *stream(req: GenerateRequest, target?: UpstreamTarget): AsyncGenerator<StreamChunk> {
    const client = this.clientFor(target);
    const upstream = recordRetryAfter();
    let text = '';
    let finished = false;
    let usageSeen = false;
    let calls = 0;
    try {
      const stream = await client.models.generateContentStream(
        params(req, upstream.fetch, target?.upstreamModel),
      );
      for await (const chunk of stream) {
        const delta = textOf(chunk);
        if (chunk.candidates?.[0]?.finishReason || chunk.promptFeedback?.blockReason) {
          finished = true;
        }
        if (delta) {
          text += delta;
          yield { text: delta };
        }
        for (const toolCall of geminiToolCalls(chunk.candidates?.[0]?.content?.parts)) {
          if (req.clientTools?.parallelToolCalls === false && calls > 0) continue;
          calls++;
          yield { toolCall };
        }
        const reason = chunk.candidates?.[0]?.finishReason;
        if (reason) yield { finishReason: geminiFinishReason(reason, calls) };
        if (chunk.usageMetadata) {
          usageSeen = true;
          const fallback = usageFallback(req.messages, text);
          yield { usage: normaliseGeminiUsage(chunk.usageMetadata, fallback) };
        }
      }
    } catch (err) {
      throw toError(err, req.signal, upstream.retryAfter);
    }
    if (!finished) throw incompleteStream(ID, LABEL, req.signal);
    if (!usageSeen) {
      yield { usage: normaliseGeminiUsage(undefined, usageFallback(req.messages, text)) };
    }
  }

  /**
   * `models.embedContent` with every text as one content (the SDK sends `batchEmbedContents`):
   * one vector per text, in order; the task type follows `purpose`; from `target` (as
   * `generate`) or the environment's client. Gemini reports no tokens for embeddings. Throws
   * ProviderError.
   */
  async embed(req: EmbedRequest, target?: UpstreamTarget): Promise<Embeddings> {
    const client = this.clientFor(target);
    const upstream = recordRetryAfter();
    try {
      const response = await client.models.embedContent({
        model: target?.upstreamModel ?? req.model,
        contents: req.texts,
        config: {
          outputDimensionality: req.dimensions,
          taskType: req.purpose && TASK_TYPES[req.purpose],
          abortSignal: req.signal,
          httpOptions: { fetch: upstream.fetch },
        },
      });
      const vectors = (response.embeddings ?? []).map((e) => e.values ?? []);
      if (vectors.length !== req.texts.length)
        throw new ProviderError(ID, 502, `Gemini returned ${vectors.length} embeddings`);
      return { vectors };
    } catch (err) {
      throw err instanceof ProviderError ? err : toError(err, req.signal, upstream.retryAfter);
    }
  }

  private requireClient(): GoogleGenAI {
    if (!this.client) throw notConfigured(ID, LABEL);
    return this.client;
  }

  /** The target's client (cached per upstream and version), else the environment's. */
  private clientFor(target: UpstreamTarget | undefined): GoogleGenAI {
    return target ? this.upstreams.of(target) : this.requireClient();
  }
}

/** A Gemini API client (never Vertex) on `baseUrl` (the SDK's host when undefined), API `v1`. */
function geminiClient(apiKey: string, baseUrl: string | undefined): GoogleGenAI {
  return new GoogleGenAI({
    apiKey,
    enterprise: false,
    httpOptions: { ...(baseUrl ? { baseUrl } : {}), apiVersion: 'v1', timeout: 120_000 },
  });
}

/**
 * The request: system messages joined into `config.systemInstruction`, `assistant` turns as
 * role `model`, the sampling fields in `config` (undefined ones are not sent). A reasoning budget
 * is `thinkingConfig.thinkingBudget`; thinking counts toward `maxOutputTokens`, which becomes
 * maxTokens + the budget. `fetch` is the per-call recording fetch (see recordRetryAfter);
 * `model` the upstream's model id when it differs from the request's.
 */
function params(
  req: GenerateRequest,
  fetch: typeof globalThis.fetch,
  model = req.model,
): GenerateContentParameters {
  const system = req.messages
    .filter((m) => m.role === 'system')
    .map((m) => m.content)
    .join('\n\n');
  const contents: Content[] = geminiContents(req.messages);
  const tools = geminiTools(req.tools);
  return {
    model,
    contents,
    config: {
      ...(system ? { systemInstruction: system } : {}),
      ...(tools ? { tools } : {}),
      ...geminiClientToolConfig(req.clientTools, req.responseFormat),
      maxOutputTokens: req.maxTokens + (req.reasoningBudget ?? 0),
      temperature: req.temperature,
      topP: req.topP,
      presencePenalty: req.presencePenalty,
      frequencyPenalty: req.frequencyPenalty,
      ...(req.stop?.length ? { stopSequences: req.stop } : {}),
      ...(req.reasoningBudget ? { thinkingConfig: { thinkingBudget: req.reasoningBudget } } : {}),
      abortSignal: req.signal,
      automaticContinuation: false,
      httpOptions: { fetch },
    },
  };
}

/** The visible text of a response or chunk: the first candidate's text parts, thoughts excluded. */
function textOf(response: GenerateContentResponse): string {
  const parts = response.candidates?.[0]?.content?.parts ?? [];
  return parts.map((p) => (typeof p.text === 'string' && !p.thought ? p.text : '')).join('');
}

/**
 * The SDK's ApiError carries the status but no headers, so each call goes through a fetch that
 * keeps the response's `Retry-After` header.
 */
function recordRetryAfter(): { fetch: typeof globalThis.fetch; retryAfter: () => string | null } {
  let retryAfter: string | null = null;
  return {
    fetch: async (input, init) => {
      const response = await globalThis.fetch(input, init);
      retryAfter = response.headers.get('retry-after');
      return response;
    },
    retryAfter: () => retryAfter,
  };
}

/**
 * Gemini states its back-off in the error body (`google.rpc.RetryInfo.retryDelay`, e.g. "30s")
 * rather than in a header; the SDK puts that body, as JSON, in ApiError's message.
 */
function retryDelayOf(err: ApiError): string | null {
  const match = /"retryDelay"\s*:\s*"(\d+(?:\.\d+)?)s"/.exec(err.message);
  return match ? match[1] : null;
}

function toError(err: unknown, signal: AbortSignal | undefined, retryAfter: () => string | null) {
  const api = err instanceof ApiError ? err : undefined;
  return toProviderError(ID, LABEL, err, signal, {
    status: api?.status,
    retryAfter: api ? (retryAfter() ?? retryDelayOf(api)) : undefined,
  });
}
