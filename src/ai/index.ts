// The one face of the AI module: other modules import `ai` only from here (eslint.config.mjs,
// FACES). Files inside `ai` import each other directly, never this file.

/** The codes ai raises (its errors file; src/app-errors.ts assembles every module's). */
export { AiErrorCode } from './ai.errors';

/** The module, and the services other modules call. */
export { AiModule } from './ai.module';
export { AiService } from './calls/ai.service';
export { AiRunner } from './calls/ai-runner.service';
export { ProtocolRunner } from './calls/protocol-runner.service';
export {
  EMBEDDINGS_DESCRIPTION,
  type EmbeddingResult,
  EmbeddingsService,
} from './calls/embeddings.service';

/** A protocol of a metered call (`{toCall, toReply, sink}`), and what its sink writes with. */
export type { Protocol, ProtocolCall } from './calls/protocol';
export type { RecordedReply, StreamSink } from './ai.types';
export { openStream } from './calls/stream-sinks';
export { ServerTiming } from './calls/server-timing';

/** The request a wire protocol maps to: messages, client tools, answer format, output caps. */
export {
  ChatMessageDto,
  type GenerateDto,
  type GenerateMessageDto,
  MAX_CONTENT_CHARS,
} from './dto/generate.dto';
export type { ClientTools, ResponseFormat, ToolChoice } from './providers/client-tools';
export type { PlanOutputLimits } from './admission/output-limits';
export { parseToolArguments } from './providers/wire/tool-arguments';

/** How calls are priced in credits (CREDIT_PRICING, CREDIT_MARKUP), for showing prices. */
export { CreditPrices } from '../credits/credit-prices';
