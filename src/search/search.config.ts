import { Transform } from 'class-transformer';
import { IsInt, IsOptional, Max, Min } from 'class-validator';
import { defineConfigSlice } from '../config/config-slice';
import { toInt } from '../config/feature-environment';

/**
 * Chat search: how messages are batched for indexing. The embeddings model and its dimensions
 * (EMBEDDINGS_MODEL, EMBEDDINGS_DIMENSIONS) are in the shared slice: ai embeds with them.
 */
export class SearchEnvironment {
  @IsOptional() @Transform(toInt) @IsInt() @Min(1) @Max(3600) SEARCH_INDEX_DELAY_SECONDS?: number;
}

/** The `search` slice (docs/search.md). */
export interface SearchConfig {
  /** SEARCH_INDEX_DELAY_SECONDS: messages saved within this window are embedded as one job (default 5). */
  indexDelaySeconds: number;
}

/** The `search` slice from validated variables. */
export function buildSearchConfig(env: SearchEnvironment): SearchConfig {
  return {
    indexDelaySeconds: env.SEARCH_INDEX_DELAY_SECONDS ?? 5,
  };
}

/** The `search` slice, read by its module with `@Inject(searchConfig.KEY)`. */
export const searchConfig = defineConfigSlice({
  name: 'search',
  environment: SearchEnvironment,
  build: buildSearchConfig,
});
