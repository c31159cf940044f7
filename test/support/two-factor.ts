import { Secret, TOTP } from 'otpauth';
import type { Response } from 'supertest';
import { Clock } from '../../src/common/clock/clock';
import type { TestApp } from './test-app';

/** A clock the tests set by hand (TOTP steps, mfaToken expiry, failure windows). */
export class SetClock extends Clock {
  at = new Date(Date.UTC(2031, 0, 1));
  now(): Date {
    return new Date(this.at);
  }
  /** Moves the clock by `seconds`. */
  tick(seconds = 30): void {
    this.at = new Date(this.at.getTime() + seconds * 1000);
  }
  /** 5 s into a fresh 30 s step, `hours` after 2031-01-01 (each test starts somewhere new). */
  startAt(hours: number): void {
    this.at = new Date(Date.UTC(2031, 0, 1) + hours * 3_600_000 + 5_000);
  }
}

/** The authenticator app, played by the same library: the code of `secret` at `at` (+ `steps`). */
export const totp = (secret: string, at: Date, steps = 0): string =>
  TOTP.generate({ secret: Secret.fromBase32(secret), timestamp: at.getTime() + steps * 30_000 });

export const bearer = (token: string) => ({ Authorization: `Bearer ${token}` });

/** The `session_token=…` pair a response set, if any. */
export const sessionCookieOf = (res: Response): string | undefined =>
  ([] as string[])
    .concat(res.headers['set-cookie'] ?? [])
    .find((c) => c.startsWith('session_token='))
    ?.split(';')[0];

export interface Enrolled {
  secret: string;
  recoveryCodes: string[];
  /** The fresh session token the enable answer gave. */
  token: string;
}

/** Setup and enable through the API at the clock's time, then one step on (so codes are fresh). */
export async function enrol(t: TestApp, clock: SetClock, token: string): Promise<Enrolled> {
  const setup = await t.http.post('/api/auth/2fa/setup').set(bearer(token)).expect(200);
  const secret: string = setup.body.secret;
  const res = await t.http
    .post('/api/auth/2fa/enable')
    .set(bearer(token))
    .send({ code: totp(secret, clock.now()) })
    .expect(200);
  clock.tick();
  return { secret, recoveryCodes: res.body.recoveryCodes, token: res.body.accessToken };
}

/** Password login that answers the 2FA challenge; returns its mfaToken. */
export async function challenge(t: TestApp, email: string, password: string): Promise<string> {
  const res = await t.http.post('/api/auth/login').send({ email, password }).expect(200);
  expect(res.body).toEqual({ mfaRequired: true, mfaToken: expect.any(String) });
  expect(sessionCookieOf(res)).toBeUndefined();
  return res.body.mfaToken;
}
