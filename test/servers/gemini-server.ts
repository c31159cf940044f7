import type { ServerResponse } from 'node:http';
import {
  type RecordedRequest,
  replyText,
  type SseFrame,
  type WireReply,
  WireTestServer,
} from './wire-server';
import { geminiAuto } from './auto-reply';
import { hashedEmbedding } from './embeddings';

export interface GeminiReply extends WireReply {
  /** `usageMetadata` of the reply / last chunk (default 10 prompt + 20 candidates tokens). */
  usage?: {
    promptTokenCount: number;
    candidatesTokenCount?: number;
    thoughtsTokenCount?: number;
    /** Of promptTokenCount, the tokens read from cached content. */
    cachedContentTokenCount?: number;
  };
  /** `google.rpc.RetryInfo.retryDelay` in a 429 body (default `2s`). */
  retryDelay?: string;
}

const ROUTE =
  /^\/v1(?:beta)?\/models\/([^:/?]+):(generateContent|streamGenerateContent|batchEmbedContents)(\?.*)?$/;

/**
 * A local server speaking the Gemini API wire protocol for the real `@google/genai` SDK
 * (base URL without the version): `POST /v1/models/{model}:batchEmbedContents` (embeddings),
 * `:generateContent` (JSON) and
 * `:streamGenerateContent?alt=sse` (SSE `data: {GenerateContentResponse}` frames, one per text
 * piece; the last carries `finishReason: STOP` and `usageMetadata`). Needs `x-goog-api-key`
 * (else 403, as Gemini answers unregistered callers).
 */
export class GeminiTestServer extends WireTestServer<GeminiReply> {
  protected autoReply(req: RecordedRequest): Partial<GeminiReply> {
    return geminiAuto(req.body, this.cachedTokens);
  }

  protected async handle(req: RecordedRequest, res: ServerResponse): Promise<void> {
    const route = ROUTE.exec(req.path);
    if (req.method !== 'POST' || !route) return this.sendJson(res, 404, this.errorBody(404));
    const status = req.headers['x-goog-api-key'] ? this.reply.status : 403;
    if (status) return this.sendError(res, status, this.errorBody(status));

    const [, model, method] = route;
    if (method === 'batchEmbedContents') return this.embeddings(req, res);
    const text = replyText(this.reply);
    // Gemini sends each call whole, as a `functionCall` part of the last chunk.
    const calls = (this.reply.toolCalls ?? []).map((c) => ({
      functionCall: { ...(c.id ? { id: c.id } : {}), name: c.name, args: c.arguments },
    }));
    const usage = this.reply.usage ?? { promptTokenCount: 10, candidatesTokenCount: 20 };
    const usageMetadata = {
      ...usage,
      totalTokenCount:
        usage.promptTokenCount +
        (usage.candidatesTokenCount ?? 0) +
        (usage.thoughtsTokenCount ?? 0),
    };
    // A thinking model's first chunk starts with a thought summary part (never shown to users).
    const thought = usage.thoughtsTokenCount ? [{ text: 'Thinking it over…', thought: true }] : [];
    const response = (piece: string, last: boolean, first = false) => ({
      candidates: [
        {
          content: {
            parts: [
              ...(first ? thought : []),
              ...(piece || !calls.length ? [{ text: piece }] : []),
              ...(last ? calls : []),
            ],
            role: 'model',
          },
          index: 0,
          ...(last ? { finishReason: 'STOP' } : {}),
        },
      ],
      ...(last ? { usageMetadata } : {}),
      modelVersion: model,
      responseId: 'resp-test',
    });
    if (method === 'generateContent') return this.sendJson(res, 200, response(text, true, true));

    const pieces = this.split(text);
    const frames: SseFrame[] = pieces.map((piece, i) => ({
      data: `data: ${JSON.stringify(response(piece, i === pieces.length - 1, i === 0))}\r\n\r\n`,
      text: true,
    }));
    await this.sendSse(res, frames);
  }

  /**
   * `:batchEmbedContents`: `{requests: [{content: {parts: [{text}]}, outputDimensionality}]}` →
   * `{embeddings: [{values}]}`, one hashed bag-of-words vector per request (64 by default).
   */
  private embeddings(req: RecordedRequest, res: ServerResponse): void {
    const requests: {
      content?: { parts?: { text?: string }[] };
      outputDimensionality?: number;
    }[] = req.body?.requests ?? [];
    this.sendJson(res, 200, {
      embeddings: requests.map((r) => ({
        values: hashedEmbedding(
          (r.content?.parts ?? []).map((p) => p.text ?? '').join(''),
          r.outputDimensionality ?? 64,
        ),
      })),
    });
  }

  /** Gemini's error body (`google.rpc.Status`) for `status`. */
  private errorBody(status: number) {
    const [code, message] =
      status === 401
        ? ['UNAUTHENTICATED', 'Request had invalid authentication credentials.']
        : status === 403
          ? ['PERMISSION_DENIED', "Method doesn't allow unregistered callers."]
          : status === 404
            ? ['NOT_FOUND', 'Requested entity was not found.']
            : status === 429
              ? ['RESOURCE_EXHAUSTED', 'Resource has been exhausted (e.g. check quota).']
              : ['INTERNAL', 'An internal error has occurred.'];
    const details =
      status === 429
        ? [
            {
              '@type': 'type.googleapis.com/google.rpc.RetryInfo',
              retryDelay: this.reply.retryDelay ?? '2s',
            },
          ]
        : undefined;
    return { error: { code: status, message, status: code, ...(details ? { details } : {}) } };
  }
}
