import { ApiProperty } from '@nestjs/swagger';
import type { GenerationRow } from './generation.dto';

/** One model call in OpenRouter's generation shape (`GET /v1/generations/{id}`). */
export class OpenRouterGenerationDto {
  @ApiProperty({ format: 'uuid' }) id: string;
  @ApiProperty({ example: 'gpt-4o-mini', description: 'the model that answered' }) model: string;
  @ApiProperty({ example: 'gpt-4o-mini' }) requested_model: string;
  @ApiProperty({ format: 'date-time' }) created_at: string;
  @ApiProperty({
    type: 'number',
    description: 'credits charged (the ledger entry; OpenRouter answers USD here)',
  })
  total_cost: number;
  @ApiProperty({ type: 'integer' }) tokens_prompt: number;
  @ApiProperty({ type: 'integer' }) tokens_completion: number;
  @ApiProperty({ type: 'integer' }) native_tokens_prompt: number;
  @ApiProperty({ type: 'integer' }) native_tokens_completion: number;
  @ApiProperty({ type: 'integer', nullable: true }) native_tokens_reasoning: number | null;
  @ApiProperty({ type: 'integer', nullable: true }) native_tokens_cached: number | null;
  @ApiProperty({ type: 'integer', description: 'ms from admission to settlement' })
  latency: number;
  @ApiProperty({ type: 'integer', nullable: true, description: 'ms from the first chunk on' })
  generation_time: number | null;
  @ApiProperty({ type: String, nullable: true }) finish_reason: string | null;
  @ApiProperty({ type: String, nullable: true }) native_finish_reason: string | null;
  @ApiProperty({ type: String, nullable: true, description: 'the answering upstream' })
  provider_name: string | null;
  @ApiProperty() streamed: boolean;
  @ApiProperty({ description: 'the stream was cut' }) cancelled: boolean;
  @ApiProperty({ description: 'true: tokens estimated (no usage reported)' })
  usage_estimated: boolean;
}

export class OpenRouterGenerationAnswerDto {
  @ApiProperty({ type: OpenRouterGenerationDto }) data: OpenRouterGenerationDto;
}

/** A generation row in OpenRouter's shape (our tokens are the provider's own, hence native too). */
export function openRouterGenerationOf(g: GenerationRow): OpenRouterGenerationAnswerDto {
  return {
    data: {
      id: g.id,
      model: g.model,
      requested_model: g.requestedModel,
      created_at: new Date(g.createdAt).toISOString(),
      total_cost: g.cost,
      tokens_prompt: g.promptTokens,
      tokens_completion: g.completionTokens,
      native_tokens_prompt: g.promptTokens,
      native_tokens_completion: g.completionTokens,
      native_tokens_reasoning: g.reasoningTokens,
      native_tokens_cached: g.cachedTokens,
      latency: g.latencyMs,
      generation_time: g.firstTokenMs === null ? null : g.latencyMs - g.firstTokenMs,
      finish_reason: g.finishReason,
      native_finish_reason: g.finishReason,
      provider_name: g.upstream,
      streamed: g.streamed,
      cancelled: g.finishReason === 'cut',
      usage_estimated: g.usageEstimated,
    },
  };
}
