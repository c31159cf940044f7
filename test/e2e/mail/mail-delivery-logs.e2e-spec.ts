import { SmtpTestServer } from '../../servers/smtp-server';
import { followLink, signUp, uniqueEmail, verificationMail } from '../../support/accounts';
import { captureStdoutLogs } from '../../support/log-capture';
import { createTestApp, type TestApp } from '../../support/test-app';
import { waitFor } from '../../support/wait';

/**
 * A mail job that sends nothing, or cannot send, says why in the log. The process's root logger
 * is built by the first app of a file, at that app's LOG_LEVEL: every app here logs at info.
 */
describe('Every mail that is not sent leaves a log line with its reason', () => {
  const logs = captureStdoutLogs();
  /** Waits for a log line matching `line` (bounded by the test's timeout). */
  const logged = (line: RegExp) => waitFor(() => line.test(logs.text()));
  afterAll(() => logs.stop());

  describe('with a real SMTP server', () => {
    const smtp = new SmtpTestServer();
    let t: TestApp;

    beforeAll(async () => {
      await smtp.start();
      t = await createTestApp({ ...smtp.env(), LOG_LEVEL: 'info' });
    });
    afterAll(async () => {
      await t.close();
      await smtp.stop();
    });

    it('a reset asked for an address without an account: a line, without the address', async () => {
      const nobody = uniqueEmail('nobody');
      await t.http.post('/api/auth/password/forgot').send({ email: nobody }).expect(202);
      expect(await logged(/No password reset mail: the address has no account/)).toBe(true);
      expect(logs.text()).not.toContain(nobody);
    });

    it('a reset mail queued in the stored language says which', async () => {
      const u = await signUp(t);
      await t.http.put('/api/user/preferences').set(u.auth).send({ locale: 'zh' }).expect(200);
      await t.http.post('/api/auth/password/forgot').send({ email: u.email }).expect(202);
      await smtp.waitForMail(u.email, { subject: /重置您的密码/ });
      expect(await logged(/"locale":"zh"[^\n]*Password reset mail queued/)).toBe(true);
    });

    it('a verification resend for a verified address', async () => {
      const u = await signUp(t);
      await followLink(t, await verificationMail(smtp, u.email), '/api/auth/verify-email').expect(
        200,
      );
      await t.http.post('/api/auth/verify-email/resend').set(u.auth).expect(202);
      expect(await logged(/No verification link sent: the address is verified/)).toBe(true);
    });
  });

  describe('with the job queue off (JOBS_ENABLED=false)', () => {
    let t: TestApp;
    beforeAll(async () => {
      t = await createTestApp({ JOBS_ENABLED: 'false', LOG_LEVEL: 'info' });
    });
    afterAll(() => t.close());

    it('a mail that cannot be queued is logged with its template', async () => {
      await signUp(t);
      expect(await logged(/"template":"verify-email"[^\n]*could not be queued/)).toBe(true);
    });
  });
});
