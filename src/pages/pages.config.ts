import { Transform } from 'class-transformer';
import { IsOptional, IsString } from 'class-validator';
import { existsSync } from 'node:fs';
import { join, resolve } from 'node:path';
import { defineConfigSlice } from '../config/config-slice';
import { emptyToUndefined, type WithNodeEnv } from '../config/feature-environment';

/** The static frontend pages are served from. */
export class PagesEnvironment implements WithNodeEnv {
  /** Read for the default folder; validated by AppEnvironment. */
  NODE_ENV?: string;
  @IsOptional() @Transform(emptyToUndefined) @IsString() FRONTEND_DIR?: string;
}

/** The `pages` slice. */
export interface PagesConfig {
  /** Absolute static frontend folder allowed page requests are served from (FRONTEND_DIR). */
  frontendDir?: string;
}

/**
 * The built console, the repository's `web/dist` (`npm run build`), found from `src/pages`
 * (ts-node) or `dist/src/pages` (the build, the image); undefined when it was not built.
 */
export function consoleDir(from = __dirname): string | undefined {
  for (const up of [2, 3]) {
    const dir = resolve(from, ...Array<string>(up).fill('..'), 'web', 'dist');
    if (existsSync(join(dir, 'index.html'))) return dir;
  }
  return undefined;
}

/**
 * The `pages` slice from validated variables: FRONTEND_DIR when set, else the built console
 * (none under NODE_ENV=test, whose tests ask for a folder when they want one).
 */
export function buildPagesConfig(env: PagesEnvironment): PagesConfig {
  if (env.FRONTEND_DIR) return { frontendDir: resolve(env.FRONTEND_DIR) };
  return { frontendDir: env.NODE_ENV === 'test' ? undefined : consoleDir() };
}

/** The `pages` slice, read by its module with `@Inject(pagesConfig.KEY)`. */
export const pagesConfig = defineConfigSlice({
  name: 'pages',
  environment: PagesEnvironment,
  build: buildPagesConfig,
});
