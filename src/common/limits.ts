/**
 * Request limits shared by the AI requests, chat settings and user preferences (here, since
 * `users` must not import `ai`).
 */

/** Spec Limits 4: at most 1000 output tokens per request (also the default). */
export const MAX_OUTPUT_TOKENS = 1000;
/** Longest system prompt of a request, chat settings or preferences (characters). */
export const MAX_SYSTEM_PROMPT = 4000;
