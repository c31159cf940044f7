import { Injectable, Logger, type OnApplicationShutdown } from '@nestjs/common';
import { ConfigService } from '@nestjs/config';
import { mkdir, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { createTransport, type Transporter } from 'nodemailer';
import type { AppConfig } from '../config/app.config';
import type { RenderedMail } from './mail.types';

/**
 * The one adapter around nodemailer. With SMTP_URL it sends over SMTP; without it (development
 * and tests only: production requires SMTP_URL at boot) it builds the same MIME message and
 * writes it as an `.eml` file under MAIL_DIR, logging the file and the mail's link at info, so a
 * fresh checkout can follow its own verification links with no mail server.
 */
@Injectable()
export class MailTransport implements OnApplicationShutdown {
  private readonly logger = new Logger('Mail');
  private readonly config: AppConfig['mail'];
  private readonly transporter: Transporter;

  constructor(config: ConfigService<AppConfig, true>) {
    this.config = config.get('mail', { infer: true });
    this.transporter = this.config.smtpUrl
      ? createTransport(this.config.smtpUrl)
      : createTransport({ streamTransport: true, buffer: true, newline: 'windows' });
  }

  /** True when mails go to `.eml` files instead of an SMTP server. */
  get toFiles(): boolean {
    return !this.config.smtpUrl;
  }

  /**
   * Delivers one mail (text and HTML parts). `id` names the `.eml` file. Rejects when the SMTP
   * server is unreachable or refuses the mail; the caller (a job) retries.
   */
  async deliver(mail: RenderedMail, id: string): Promise<void> {
    const info = await this.transporter.sendMail({
      from: this.config.from,
      to: mail.to,
      subject: mail.subject,
      text: mail.text,
      html: mail.html,
    });
    if (!this.toFiles) return;
    await mkdir(this.config.dir, { recursive: true });
    const file = join(
      this.config.dir,
      `${new Date().toISOString().replace(/[:.]/g, '-')}-${id}.eml`,
    );
    await writeFile(file, info.message as Buffer);
    this.logger.log(
      { to: mail.to, file, link: mail.link },
      `Mail "${mail.subject}" written to ${file}${mail.link ? `; link: ${mail.link}` : ''}`,
    );
  }

  onApplicationShutdown(): void {
    this.transporter.close();
  }
}
