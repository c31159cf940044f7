import type { ModelParametersDto } from './dto/model-parameters.dto';

// The vocabulary of a metered model call, shared by every module that makes, runs, saves or
// prices one (ai, gateway, plugins, chats, credits, tasks): pure types, below all of them.

/** A JSON Schema object (draft 2020-12 subset the three providers accept). */
export type JsonSchema = Record<string, unknown>;

/** A tool offered to the model. `name` matches /^[a-zA-Z0-9_-]{1,64}$/ (all three APIs). */
export interface ToolDefinition {
  name: string;
  description: string;
  /** JSON Schema of the arguments object (`type: "object"`). */
  parameters: JsonSchema;
}

/** A call the model asked for; `id` is the provider's call id (ours for Gemini). */
export interface ToolCall {
  id: string;
  name: string;
  arguments: Record<string, unknown>;
}

/** Token usage of one model call, as the provider reported it (or as estimated for a cut one). */
export interface TokenUsage {
  /** Every input token billed, cache reads and cache writes included. */
  promptTokens: number;
  /** Everything the model generated, reasoning (thinking) tokens included: all billed. */
  completionTokens: number;
  /** Of `completionTokens`, the reasoning tokens, when the provider reports them (not added again). */
  reasoningTokens?: number;
  /** Of `promptTokens`, the tokens read from the provider's prompt cache, when it reports them. */
  cachedTokens?: number;
  /**
   * Of `promptTokens`, the tokens written to the provider's prompt cache, when it reports them
   * (every lifetime: 5-minute and 1-hour writes together).
   */
  cacheWriteTokens?: number;
  /** Of `cacheWriteTokens`, those written for one hour (Anthropic `ephemeral_1h_input_tokens`). */
  cacheWrite1hTokens?: number;
  /** Of `promptTokens`, the uncached image input tokens, when the provider reports them apart. */
  imageTokens?: number;
  /** Of `promptTokens`, the uncached audio input tokens, when the provider reports them apart. */
  audioTokens?: number;
}

/** Why a reply ended, in our terms; each protocol maps it (OpenAI finish_reason, Anthropic stop_reason, Responses status). */
export type FinishReason = 'stop' | 'length' | 'tool_calls';

/** One part of a message: text, or an image by upload id or URL. */
export type MessagePart =
  | { type: 'text'; text: string }
  | { type: 'image'; uploadId: string }
  | { type: 'image'; url: string };

/** A message's content: a non-empty string, or 1..20 parts. */
export type MessageContent = string | MessagePart[];

/** A tool-loop message saved between the inputs and the reply: the calls, or one result. */
export interface ToolStep {
  role: 'ASSISTANT' | 'TOOL';
  content: string;
  tool: { calls: ToolCall[] } | { id: string; name: string; ok: boolean };
}

/** A message of a call as our own API sends it: text, or text and images. */
export interface CallInputMessage {
  role: 'system' | 'user' | 'assistant';
  content: MessageContent;
}

/**
 * A message of a wire request beyond text/images: an assistant turn that called tools (its
 * `content` may be `''`), or a tool's result. `toolName` is the called tool's name (Gemini's
 * functionResponse needs it; mappers that only have the id look it up in the earlier assistant
 * turn's `toolCalls`).
 */
export type WireMessage =
  | { role: 'assistant'; content: MessageContent; toolCalls: ToolCall[] }
  | { role: 'tool'; toolCallId: string; toolName: string; content: string; isError?: boolean };

/**
 * What a metered call asks for: the model and its parameters, the messages (our API's, or a wire
 * protocol's with tool calls and results), the chat it continues, its plugins. Every validated
 * `/api/ai/generate` body (GenerateDto) is one; the wire mappers build one.
 */
export interface CallRequest extends ModelParametersDto {
  messages: (CallInputMessage | WireMessage)[];
  /** The chat continued (else a new chat is saved). */
  chatId?: string;
  /**
   * The team whose pool pays (the caller must be a member); null: the caller's own balance even
   * in a team chat; absent: the API key's team, else the chat's team, else the caller's own.
   */
  teamId?: string | null;
  /** The plugins whose tools the model may call (run on the server). */
  plugins?: string[];
  /** Model calls of the tool loop at most. */
  maxToolSteps?: number;
}
