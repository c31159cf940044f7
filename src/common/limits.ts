/**
 * Request limits shared by the AI requests, chat settings and user preferences (here, since
 * `users` must not import `ai`).
 */

/**
 * Spec Limits 4: at most 1000 output tokens per request on the spec's routes (also their
 * default). MAX_OUTPUT_TOKENS (ai config) may raise that cap; each model's own output maximum
 * bounds it further (its `parameters.maxTokens.max`).
 */
export const MAX_OUTPUT_TOKENS = 1000;
/**
 * The widest `maxTokens` any request or setting may state before the model is known: no model
 * generates more in one reply. The effective limit is checked once the model is resolved.
 */
export const MAX_OUTPUT_TOKENS_CEILING = 1_000_000;
/** Longest system prompt of a request, chat settings or preferences (characters). */
export const MAX_SYSTEM_PROMPT = 4000;
