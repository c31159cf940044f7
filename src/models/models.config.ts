import { Transform } from 'class-transformer';
import { IsInt, IsOptional, IsString, Max, Min } from 'class-validator';
import { MAX_OUTPUT_TOKENS, MAX_OUTPUT_TOKENS_CEILING } from '../common/limits';
import { defineConfigSlice } from '../config/config-slice';
import { emptyToUndefined, toInt } from '../config/feature-environment';

/**
 * The model catalogue: its file and the output cap of the spec's routes. Which providers have a
 * key is read from the shared slice.
 */
export class ModelsEnvironment {
  @IsOptional() @Transform(emptyToUndefined) @IsString() MODELS_FILE?: string;
  @IsOptional()
  @Transform(toInt)
  @IsInt()
  @Min(1)
  @Max(MAX_OUTPUT_TOKENS_CEILING)
  MAX_OUTPUT_TOKENS?: number;
}

/** The `models` slice. */
export interface ModelsConfig {
  /** MODELS_FILE: a JSON catalogue replacing the default models; unset: the default. */
  modelsFile?: string;
  /**
   * MAX_OUTPUT_TOKENS: the most output tokens a request of the spec's routes (`/api/ai/*`) may
   * ask for, within each model's own maximum (default 1000, the spec's limit).
   */
  maxOutputTokens: number;
}

/** The `models` slice from validated variables. */
export function buildModelsConfig(env: ModelsEnvironment): ModelsConfig {
  return {
    modelsFile: env.MODELS_FILE,
    maxOutputTokens: env.MAX_OUTPUT_TOKENS ?? MAX_OUTPUT_TOKENS,
  };
}

/** The `models` slice, read by its module with `@Inject(modelsConfig.KEY)`. */
export const modelsConfig = defineConfigSlice({
  name: 'models',
  environment: ModelsEnvironment,
  build: buildModelsConfig,
});
