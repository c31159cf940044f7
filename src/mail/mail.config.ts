import { Transform } from 'class-transformer';
import { IsOptional, IsString, Matches, MaxLength, ValidateIf } from 'class-validator';
import { resolve } from 'node:path';
import { defineConfigSlice } from '../config/config-slice';
import { emptyToUndefined, type WithNodeEnv } from '../config/feature-environment';

/** Outgoing mail; in production there is no file fallback, so a server is required. */
export class MailEnvironment implements WithNodeEnv {
  /** Read for the production rule; validated by AppEnvironment. */
  NODE_ENV?: string;
  @ValidateIf((o: MailEnvironment) => o.NODE_ENV === 'production' || o.SMTP_URL !== undefined)
  @Transform(emptyToUndefined)
  @Matches(/^smtps?:\/\/[^\s/?#]+(?::\d{1,5})?\/?$/, {
    message: ({ value }) =>
      value === undefined
        ? 'SMTP_URL is required in production (e.g. smtp://user:pass@host:587)'
        : 'SMTP_URL must be an smtp:// or smtps:// URL (e.g. smtp://user:pass@host:587)',
  })
  SMTP_URL?: string;
  @IsOptional() @Transform(emptyToUndefined) @IsString() @MaxLength(320) MAIL_FROM?: string;
  @IsOptional() @Transform(emptyToUndefined) @IsString() MAIL_DIR?: string;
}

/** The `mail` slice: transactional mail (src/mail). */
export interface MailConfig {
  /** SMTP_URL (`smtp://user:pass@host:587`); unset outside production: `.eml` files in `dir`. */
  smtpUrl?: string;
  /** MAIL_FROM: the From header (default `AI Chat <no-reply@localhost>`). */
  from: string;
  /** MAIL_DIR: absolute folder of the `.eml` files without SMTP_URL (default `.data/mail`). */
  dir: string;
}

/** The `mail` slice from validated variables. */
export function buildMailConfig(env: MailEnvironment): MailConfig {
  return {
    smtpUrl: env.SMTP_URL,
    from: env.MAIL_FROM ?? 'AI Chat <no-reply@localhost>',
    dir: resolve(env.MAIL_DIR ?? '.data/mail'),
  };
}

/** The `mail` slice, read by its module with `@Inject(mailConfig.KEY)`. */
export const mailConfig = defineConfigSlice({
  name: 'mail',
  environment: MailEnvironment,
  build: buildMailConfig,
});
