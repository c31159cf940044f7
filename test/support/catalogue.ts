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
