import type { EmbeddingResult } from '../ai';
import { AppError, CommonErrorCode } from '../common/errors/app-error';
import { codePoints } from '../common/text/code-points';
import { ModelsErrorCode } from '../models/models.errors';
import {
  type EmbeddingDto,
  type EmbeddingsResponseDto,
  type EncodingFormat,
  MAX_EMBEDDING_CHARS,
  MAX_EMBEDDING_INPUTS,
} from './dto/embeddings.dto';

const invalid = (message: string, param = 'input') =>
  new AppError(CommonErrorCode.VALIDATION_FAILED, message, { param });

/**
 * The texts of an OpenAI embeddings `input`: a string, or an array of strings. Throws
 * UNSUPPORTED_PARAMETER (400, `param: "input"`) for token arrays (numbers, or arrays of them),
 * and VALIDATION_FAILED (400, `param: "input"`) for anything else that is not a non-empty
 * string, more than MAX_EMBEDDING_INPUTS inputs, an empty array, or more than
 * MAX_EMBEDDING_CHARS characters (code points) in all.
 */
export function embeddingInputs(input: unknown): string[] {
  const texts = typeof input === 'string' ? [input] : input;
  if (!Array.isArray(texts)) throw invalid('input must be a string or an array of strings');
  if (texts.some((t) => typeof t === 'number' || Array.isArray(t)))
    throw new AppError(
      ModelsErrorCode.UNSUPPORTED_PARAMETER,
      'input as token arrays is not supported',
      {
        param: 'input',
      },
    );
  if (texts.length === 0) throw invalid('input must not be empty');
  if (texts.length > MAX_EMBEDDING_INPUTS)
    throw invalid(`input has more than ${MAX_EMBEDDING_INPUTS} items`);
  let chars = 0;
  for (const [i, text] of texts.entries()) {
    if (typeof text !== 'string' || text.length === 0)
      throw invalid(`input[${i}] must be a non-empty string`);
    chars += codePoints(text);
  }
  if (chars > MAX_EMBEDDING_CHARS) throw invalid(`input exceeds ${MAX_EMBEDDING_CHARS} characters`);
  return texts as string[];
}

/**
 * Refuses with VALIDATION_FAILED (400, `param: "input"`) an input longer than the model's
 * context (`maxTokens`), counted as it is charged (`tokensOf`).
 */
export function requireWithinContext(
  texts: string[],
  maxTokens: number,
  tokensOf: (text: string) => number,
): void {
  const at = texts.findIndex((text) => tokensOf(text) > maxTokens);
  if (at !== -1) throw invalid(`input[${at}] exceeds the model's ${maxTokens} tokens`);
}

/** A vector as OpenAI's `base64` encoding: little-endian float32 bytes. */
export function base64Vector(vector: number[]): string {
  const bytes = Buffer.alloc(vector.length * 4);
  vector.forEach((v, i) => bytes.writeFloatLE(v, i * 4));
  return bytes.toString('base64');
}

/** The answer of POST /v1/embeddings: vectors in input order, usage in tokens, cost in credits. */
export function embeddingsResponseOf(
  model: string,
  result: EmbeddingResult,
  format: EncodingFormat,
): EmbeddingsResponseDto {
  return {
    object: 'list',
    data: result.vectors.map((vector, index): EmbeddingDto => ({
      object: 'embedding',
      index,
      embedding: format === 'base64' ? base64Vector(vector) : vector,
    })),
    model,
    usage: { prompt_tokens: result.tokens, total_tokens: result.tokens },
    cost: result.cost,
  };
}
