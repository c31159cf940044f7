import { simpleParser } from 'mailparser';
import { MetricsService } from '../../../src/metrics/metrics.service';
import { readdir, readFile } from 'node:fs/promises';
import { join } from 'node:path';
import { SmtpTestServer } from '../../servers/smtp-server';
import { followLink, mailFile, signUp, verificationMail } from '../../support/accounts';
import { createTestApp, type TestApp } from '../../support/test-app';
import { waitFor } from '../../support/wait';

describe('Mail delivery through the job queue', () => {
  describe('with an SMTP server that goes down', () => {
    const smtp = new SmtpTestServer();
    let t: TestApp;

    /** Attempts so far of the mail job to `to`: retry_count and state, from pg-boss' table. */
    const mailJob = async (to: string) =>
      (
        await t.db.query(
          `SELECT retry_count AS "retryCount", state FROM pgboss.job
           WHERE name = 'mail-send' AND data->>'to' = $1`,
          [to],
        )
      )[0] as { retryCount: number; state: string } | undefined;

    beforeAll(async () => {
      await smtp.start();
      t = await createTestApp({ ...smtp.env(), JOBS_POLL_INTERVAL_SECONDS: '0.5' });
    });
    afterAll(async () => {
      await t.close();
      await smtp.stop();
    });

    it('the request still succeeds; the mail is retried and arrives, once, when SMTP returns', async () => {
      await smtp.stop();
      const u = await signUp(t); // 201 although no mail can be sent
      expect(
        await waitFor(async () => ((await mailJob(u.email))?.retryCount ?? 0) >= 1, 30_000),
      ).toBe(true);
      expect(smtp.inbox(u.email)).toEqual([]);

      await smtp.start(); // the same port
      const mail = await verificationMail(smtp, u.email);
      expect(await waitFor(async () => (await mailJob(u.email))?.state === 'completed')).toBe(true);
      expect(smtp.inbox(u.email)).toHaveLength(1);
      await followLink(t, mail, '/api/auth/verify-email').expect(200);
    });

    it('counts delivered mails in mail_sent_total', async () => {
      const u = await signUp(t);
      await verificationMail(smtp, u.email);
      // Counted once the SMTP server acknowledged, which may be just after it parsed the mail.
      const sent = async () =>
        (await t.app.get(MetricsService).mailSent.get()).values.find(
          (v) => v.labels.template === 'verify-email',
        )?.value ?? 0;
      expect(await waitFor(async () => (await sent()) === 2)).toBe(true);
    });
  });

  describe('with the job queue off on this instance (JOBS_ENABLED=false)', () => {
    let t: TestApp;
    beforeAll(async () => {
      t = await createTestApp({ JOBS_ENABLED: 'false' });
    });
    afterAll(() => t.close());

    it('sign-up still succeeds; the mail that cannot be queued is counted in mail_failed_total', async () => {
      const failed = async () =>
        (await t.app.get(MetricsService).mailFailed.get()).values.find(
          (v) => v.labels.template === 'verify-email',
        )?.value ?? 0;
      const before = await failed();
      await signUp(t);
      expect(await failed()).toBe(before + 1);
    });
  });

  describe('without SMTP_URL (development)', () => {
    let t: TestApp;
    beforeAll(async () => {
      t = await createTestApp({ JOBS_POLL_INTERVAL_SECONDS: '0.5' });
    });
    afterAll(() => t.close());

    it('writes each mail as an .eml file with a text and an HTML part, whose link works', async () => {
      const u = await signUp(t);
      const mail = await mailFile(t, u.email);
      expect(mail.link).toMatch(/^http:\/\/localhost:3000\/en\/auth\/verify-email\?token=/);
      const [name] = (await readdir(t.mailDir)).filter((f) => f.endsWith('.eml'));
      const parsed = await simpleParser(await readFile(join(t.mailDir, name)));
      expect(parsed.text).toContain(mail.link);
      expect(parsed.html).toContain(`href="${mail.link}"`);
      await t.http.post('/api/auth/verify-email').send({ token: mail.token }).expect(200);
    });
  });
});
