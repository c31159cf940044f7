import { mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { DEFAULT_MODELS } from '../../src/models/default-models';

/**
 * A MODELS_FILE of the default catalogue plus `gpt-4o-mini` copies under `ids` without any
 * capability (no vision, no tools), to test refusing images and tools. Returns its path.
 */
export function catalogueWithPlainModels(...ids: string[]): string {
  const file = join(mkdtempSync(join(tmpdir(), 'models-')), 'models.json');
  const plain = ids.map((id) => ({ ...DEFAULT_MODELS[0], id, name: id, capabilities: [] }));
  writeFileSync(file, JSON.stringify([...DEFAULT_MODELS, ...plain]));
  return file;
}

/**
 * A MODELS_FILE of the default catalogue plus three routing models (limits 8000 tokens):
 * `route-a` (OpenAI, 0.1 credit a token, tools) falls back to `route-b` (Anthropic, 0.2 a token,
 * no capability), then to `route-c` (Gemini, 0.3 a token, tools). Returns its path.
 */
export function routingCatalogue(): string {
  const file = join(mkdtempSync(join(tmpdir(), 'models-')), 'models.json');
  const base = { maxTokens: 8000, description: 'routing test model' };
  const models = [
    ...DEFAULT_MODELS,
    {
      ...base,
      id: 'route-a',
      name: 'A',
      providerId: 'openai',
      costPerToken: '0.0001',
      capabilities: ['tools'],
      fallbacks: ['route-b', 'route-c'],
    },
    { ...base, id: 'route-b', name: 'B', providerId: 'anthropic', costPerToken: '0.0002' },
    {
      ...base,
      id: 'route-c',
      name: 'C',
      providerId: 'google',
      costPerToken: '0.0003',
      capabilities: ['tools'],
    },
  ];
  writeFileSync(file, JSON.stringify(models));
  return file;
}
