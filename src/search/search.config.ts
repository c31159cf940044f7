import { Transform } from 'class-transformer';
import { IsInt, IsOptional, IsString, Max, MaxLength, Min } from 'class-validator';
import { defineConfigSlice } from '../config/config-slice';
import { emptyToUndefined, toInt } from '../config/feature-environment';

/** Chat search: the embeddings model and how messages are batched for indexing. */
export class SearchEnvironment {
  @IsOptional() @Transform(emptyToUndefined) @IsString() @MaxLength(200) EMBEDDINGS_MODEL?: string;
  @IsOptional() @Transform(toInt) @IsInt() @Min(8) @Max(3072) EMBEDDINGS_DIMENSIONS?: number;
  @IsOptional() @Transform(toInt) @IsInt() @Min(1) @Max(3600) SEARCH_INDEX_DELAY_SECONDS?: number;
}

/** The `search` slice (docs/search.md). */
export interface SearchConfig {
  /** EMBEDDINGS_MODEL: catalogue id of an `embedding` model; unset: semantic search is off. */
  embeddingsModel?: string;
  /** EMBEDDINGS_DIMENSIONS: vector length asked of the provider (default 256). */
  dimensions: number;
  /** SEARCH_INDEX_DELAY_SECONDS: messages saved within this window are embedded as one job (default 5). */
  indexDelaySeconds: number;
}

/** The `search` slice from validated variables. */
export function buildSearchConfig(env: SearchEnvironment): SearchConfig {
  return {
    embeddingsModel: env.EMBEDDINGS_MODEL,
    dimensions: env.EMBEDDINGS_DIMENSIONS ?? 256,
    indexDelaySeconds: env.SEARCH_INDEX_DELAY_SECONDS ?? 5,
  };
}

/** The `search` slice, read by its module with `@Inject(searchConfig.KEY)`. */
export const searchConfig = defineConfigSlice({
  name: 'search',
  environment: SearchEnvironment,
  build: buildSearchConfig,
});
