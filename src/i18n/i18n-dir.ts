import { existsSync } from 'node:fs';
import { dirname, join } from 'node:path';

/**
 * The repository's `i18n/` folder, found by walking up from this file, so it resolves the same
 * from `src/` (tests, ts-node) and from `dist/src/` (the build) and in the Docker image.
 */
export function i18nDir(from = __dirname): string {
  for (let dir = from; ; dir = dirname(dir)) {
    const candidate = join(dir, 'i18n');
    if (existsSync(join(candidate, 'en'))) return candidate;
    if (dirname(dir) === dir) throw new Error(`No i18n/ folder above ${from}`);
  }
}
