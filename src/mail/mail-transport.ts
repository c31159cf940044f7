import { Inject, Injectable, Logger, type OnApplicationShutdown } from '@nestjs/common';
import type { ConfigType } from '@nestjs/config';
import { mailConfig } from './mail.config';
import { mkdir, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { createTransport, type Transporter } from 'nodemailer';
import type { RenderedMail } from './mail.types';

/**
 * The one adapter around nodemailer. With SMTP_URL it sends over SMTP; without it (development
 * and tests only: production requires SMTP_URL at boot) it builds the same MIME message and
 * writes it as an `.eml` file under MAIL_DIR, with a plain-text copy beside it (`.txt`: the
 * headers, a `Link:` line and the text part, undecoded, so a link can be copied or grepped
 * as it is), and logs the file and the mail's whole link at info, so a fresh checkout can follow
 * its own verification links with no mail server.
 */
@Injectable()
export class MailTransport implements OnApplicationShutdown {
  private readonly logger = new Logger('Mail');
  private readonly config: ConfigType<typeof mailConfig>;
  private readonly transporter: Transporter;

  constructor(@Inject(mailConfig.KEY) mail: ConfigType<typeof mailConfig>) {
    this.config = mail;
    this.transporter = this.config.smtpUrl
      ? createTransport(this.config.smtpUrl)
      : createTransport({ streamTransport: true, buffer: true, newline: 'windows' });
  }

  /** True when mails go to `.eml` and `.txt` files instead of an SMTP server. */
  get toFiles(): boolean {
    return !this.config.smtpUrl;
  }

  /**
   * Delivers one mail (text and HTML parts). `id` names the files (`<ISO time>-<id>.eml` and
   * `.txt`, so names sort by time). Rejects when the SMTP server is unreachable or refuses the
   * mail, or the files cannot be written; the caller (a job) retries.
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
    const stem = join(this.config.dir, `${new Date().toISOString().replace(/[:.]/g, '-')}-${id}`);
    await writeFile(`${stem}.eml`, info.message as Buffer);
    await writeFile(`${stem}.txt`, plainCopy(this.config.from, mail));
    this.logger.log(
      { to: mail.to, file: `${stem}.txt`, link: mail.link },
      `Mail "${mail.subject}" to ${mail.to} written to ${stem}.txt (and .eml)${mail.link ? `; link: ${mail.link}` : ''}`,
    );
  }

  onApplicationShutdown(): void {
    this.transporter.close();
  }
}

/** The `.txt` copy of a mail: From, To, Subject and Link (when it has one) lines, then its text. */
export function plainCopy(from: string, mail: RenderedMail): string {
  const headers = [`From: ${from}`, `To: ${mail.to}`, `Subject: ${mail.subject}`];
  if (mail.link) headers.push(`Link: ${mail.link}`);
  return `${headers.join('\n')}\n\n${mail.text}\n`;
}
