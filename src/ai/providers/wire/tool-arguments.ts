import { randomUUID } from 'node:crypto';

/**
 * A tool call's arguments from the JSON text a model produced. A model may write invalid JSON or
 * a non-object; the tool then gets `{}` with the text under `_unparsed`, and its own validation
 * answers the model with an error (tool errors go back to the model, never to the client).
 */
export function parseToolArguments(json: string): Record<string, unknown> {
  if (!json.trim()) return {};
  try {
    const value: unknown = JSON.parse(json);
    if (value && typeof value === 'object' && !Array.isArray(value))
      return value as Record<string, unknown>;
  } catch {
    // fall through
  }
  return { _unparsed: json.slice(0, 1000) };
}

/** A call id for providers that may send none (Gemini): unique within a request. */
export function newToolCallId(): string {
  return `call_${randomUUID().replace(/-/g, '').slice(0, 24)}`;
}
