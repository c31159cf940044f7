import type { ModelParametersDto } from '../models/dto/model-parameters.dto';
import type { ModelCatalogue } from '../models/model-catalogue';
import { checkParameters } from '../models/model-parameters';
import { ValidationFailedError } from '../common/validation/validation.pipe';

/**
 * Checks a chat's new settings and returns what to store: null for none (an empty
 * object, or null, stores nothing). With a `modelId`, the model must be available (400 naming
 * `settings.modelId`) and every value within its ranges (400 UNSUPPORTED_PARAMETER or naming the
 * field); without one, the values are checked when a request uses them with its model.
 */
export function chatSettingsToStore(
  catalogue: ModelCatalogue,
  settings: ModelParametersDto | null,
): ModelParametersDto | null {
  const stored = Object.fromEntries(
    Object.entries(settings ?? {}).filter(([, v]) => v !== undefined && v !== null),
  ) as ModelParametersDto;
  if (Object.keys(stored).length === 0) return null;
  if (stored.modelId !== undefined) {
    const model = catalogue.find(stored.modelId);
    if (!model) {
      throw new ValidationFailedError([
        {
          property: 'settings.modelId',
          constraint: 'knownModel',
          message: `settings.modelId: unknown or unavailable model "${stored.modelId}"`,
        },
      ]);
    }
    checkParameters(model.id, model.parameters, stored, {});
  }
  return stored;
}
