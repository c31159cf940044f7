import { registerAs } from '@nestjs/config';
import { Transform } from 'class-transformer';
import { IsOptional, IsString } from 'class-validator';
import { resolve } from 'node:path';
import { emptyToUndefined, featureEnvironment } from '../config/feature-environment';

/** The static frontend pages are served from. */
export class PagesEnvironment {
  @IsOptional() @Transform(emptyToUndefined) @IsString() FRONTEND_DIR?: string;
}

/** The `pages` slice of AppConfig. */
export interface PagesConfig {
  /** Absolute static frontend folder allowed page requests are served from (FRONTEND_DIR). */
  frontendDir?: string;
}

/** The `pages` slice from validated variables. */
export function buildPagesConfig(env: PagesEnvironment): PagesConfig {
  return { frontendDir: env.FRONTEND_DIR ? resolve(env.FRONTEND_DIR) : undefined };
}

/** The `pages` namespace, built alone from process.env (AppModule registers it from AppConfig). */
export const pagesConfig = registerAs('pages', (): PagesConfig =>
  buildPagesConfig(featureEnvironment(PagesEnvironment)),
);
