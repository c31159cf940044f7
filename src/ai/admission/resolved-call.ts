import type { ModelDescriptor } from '../../models/model-catalogue';
import type { ParameterName } from '../../models/dto/model-parameters.dto';
import type { resolveParameters } from '../../models/model-parameters';
import type { ToolBox } from '../../plugins/tool.types';
import type { Tariff } from '../../prices/tariff';
import type { ResolvedImage } from '../../uploads/upload-images.service';
import type { Admission } from '../ai.types';
import type { ProviderMessage } from '../providers/model-provider';
import type { InputMessage } from './message-inputs';

/** What a request asks for, resolved and checked, before any money is reserved. */
export interface ResolvedCall {
  inputs: InputMessage[];
  /** The request's images in order: uploads the caller may read, or inline data. */
  images: ResolvedImage[];
  model: Admission['model'];
  /** The models tried after `model` when its upstreams fail (see fallbackModels), priced. */
  fallbacks: ModelDescriptor[];
  /** The tariff of `model` and of each fallback, by id (see `priceCall`). */
  tariffs: Record<string, Tariff>;
  /** The effective parameter values (request > chat > preferences > default). */
  values: ReturnType<typeof resolveParameters>['values'];
  /** Inherited parameters the model does not take, passed over (see `fitParameters`). */
  skippedParameters: ParameterName[];
  /** The model's reasoning budget in tokens (0: none), held on top of `maxTokens`. */
  budget: number;
  toolBox?: ToolBox;
  /** The provider messages, their images without bytes (read once the hold is taken). */
  messages: ProviderMessage[];
  /** Prompt tokens of the client tools' JSON (see clientToolTokens). */
  toolTokens: number;
  /** The team whose pool pays (see payingTeam); undefined: the caller's own balance. */
  teamId?: string;
}
