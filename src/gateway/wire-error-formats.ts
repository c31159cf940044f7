import type { WireErrorFormat } from '../common/errors/wire-error-formats';
import { ANTHROPIC_PATH, anthropicErrorBody } from './anthropic-error';
import { AnthropicErrorDto, OpenAiErrorDto } from './dto/wire-error.dto';
import { openAiErrorBody } from './openai-error';

/**
 * The error shapes of the gateway's protocols, registered in src/app-errors.ts: OpenAI's
 * `{error: {message, type, code, param}}` for every `/v1` path, Anthropic's
 * `{type: "error", error: {type, message, details}}` for `/v1/messages` and what lies under it
 * (the longer prefix wins). By path, so an unreadable body, an unknown `/v1` route or a refused
 * key answers in the shape the client's SDK parses.
 */
export const GATEWAY_ERROR_FORMATS: readonly WireErrorFormat[] = [
  { prefix: '/v1', body: openAiErrorBody, schema: OpenAiErrorDto },
  { prefix: ANTHROPIC_PATH, body: anthropicErrorBody, schema: AnthropicErrorDto },
];
