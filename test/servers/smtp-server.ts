import type { AddressInfo } from 'node:net';
import { simpleParser, type AddressObject } from 'mailparser';
import { SMTPServer } from 'smtp-server';
import { waitFor } from '../support/wait';

/** Credentials the test server accepts (AUTH PLAIN/LOGIN). */
export const SMTP_USER = 'mailer';
export const SMTP_PASS = 'smtp-secret';

/** One message as the server received and mailparser read it. */
export interface ReceivedMail {
  /** Envelope recipients (RCPT TO), lower-cased. */
  to: string[];
  from: string;
  subject: string;
  text: string;
  html: string;
  /** The first http(s) link of the text part, when there is one. */
  link?: string;
  /** The `token` query parameter of `link`. */
  token?: string;
  /** The `lang` of the HTML part's root element. */
  lang?: string;
}

/**
 * A real SMTP server in the test process (the `smtp-server` package): the service sends to it
 * with nodemailer over the wire, and tests read what arrived, parsed by `mailparser`. It can be
 * stopped and started again on the same port, to play a mail server that is down for a while.
 */
export class SmtpTestServer {
  readonly mails: ReceivedMail[] = [];
  port = 0;
  private server?: SMTPServer;

  /** SMTP_URL and MAIL_FROM pointing the service at this server. */
  env(): Record<string, string> {
    return {
      SMTP_URL: `smtp://${SMTP_USER}:${SMTP_PASS}@127.0.0.1:${this.port}`,
      MAIL_FROM: 'AI Chat <no-reply@chat.test>',
    };
  }

  /** Listens on `port` (0: a free one; later starts reuse the first port). */
  async start(port = this.port): Promise<this> {
    const server = new SMTPServer({
      // No TLS in tests: nodemailer would otherwise upgrade to a self-signed certificate.
      disabledCommands: ['STARTTLS'],
      allowInsecureAuth: true,
      logger: false,
      onAuth: (auth, _session, cb) =>
        auth.username === SMTP_USER && auth.password === SMTP_PASS
          ? cb(null, { user: auth.username })
          : cb(new Error('Invalid username or password')),
      onData: (stream, session, cb) => {
        simpleParser(stream)
          .then((parsed) => {
            this.mails.push(
              toReceived(
                parsed,
                session.envelope.rcptTo.map((r) => r.address),
              ),
            );
            cb();
          })
          .catch(cb);
      },
    });
    await new Promise<void>((resolve, reject) => {
      server.once('error', reject);
      server.listen(port, '127.0.0.1', () => resolve());
    });
    this.server = server;
    this.port = (server.server.address() as AddressInfo).port;
    return this;
  }

  /** Stops listening (connections in progress are cut); the port stays this server's to reuse. */
  async stop(): Promise<void> {
    const server = this.server;
    this.server = undefined;
    if (server) await new Promise<void>((resolve) => server.close(() => resolve()));
  }

  /** Mails received for `address`, oldest first. */
  inbox(address: string): ReceivedMail[] {
    const to = address.toLowerCase();
    return this.mails.filter((m) => m.to.includes(to));
  }

  /**
   * The `n`-th mail (1-based) for `address` matching `subject`, once it arrived; throws after
   * `ms` without it.
   */
  async waitForMail(
    address: string,
    opts: { subject?: RegExp; n?: number; ms?: number } = {},
  ): Promise<ReceivedMail> {
    const n = opts.n ?? 1;
    const matching = () =>
      this.inbox(address).filter((m) => !opts.subject || opts.subject.test(m.subject));
    const arrived = await waitFor(() => matching().length >= n, opts.ms ?? 15_000);
    if (!arrived)
      throw new Error(
        `no mail #${n} for ${address}${opts.subject ? ` matching ${opts.subject}` : ''}; got: ${
          this.mails.map((m) => `${m.to.join(',')}: ${m.subject}`).join('; ') || 'none'
        }`,
      );
    return matching()[n - 1];
  }
}

function toReceived(
  parsed: Awaited<ReturnType<typeof simpleParser>>,
  rcptTo: string[],
): ReceivedMail {
  const text = parsed.text ?? '';
  const html = typeof parsed.html === 'string' ? parsed.html : '';
  const link = /https?:\/\/\S+/.exec(text)?.[0];
  const from = (parsed.from as AddressObject | undefined)?.text ?? '';
  return {
    to: rcptTo.map((a) => a.toLowerCase()),
    from,
    subject: parsed.subject ?? '',
    text,
    html,
    link,
    token: link ? (new URL(link).searchParams.get('token') ?? undefined) : undefined,
    lang: /<html lang="([^"]+)"/.exec(html)?.[1],
  };
}
