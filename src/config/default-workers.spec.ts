import { buildAppSettings, defaultWorkers } from './app-settings.config';

describe('defaultWorkers (WEB_CONCURRENCY unset)', () => {
  it('leaves a core to a PostgreSQL on this host: embedded, localhost, 127.x, ::1, a socket', () => {
    for (const url of [
      undefined,
      'postgres://app@localhost:5432/app',
      'postgres://app@127.0.0.1/app',
      'postgresql://app@[::1]:5432/app',
      'postgres:///app?host=/var/run/postgresql',
      'postgres://app@%2Fvar%2Frun%2Fpostgresql/app',
    ]) {
      expect([url, defaultWorkers(url, 2)]).toEqual([url, 1]);
      expect([url, defaultWorkers(url, 8)]).toEqual([url, 7]);
    }
  });

  it('gives every CPU to the service when the database is on another host', () => {
    expect(defaultWorkers('postgres://app@db.internal:5432/app', 2)).toBe(2);
    expect(defaultWorkers('postgres://app@10.0.0.5/app', 4)).toBe(4);
  });

  it('never goes below one worker', () => {
    expect(defaultWorkers(undefined, 1)).toBe(1);
  });

  it('is what the app settings use, and WEB_CONCURRENCY still wins', () => {
    expect(buildAppSettings({}, 'postgres://app@db.internal/app').workers).toBe(
      defaultWorkers('postgres://app@db.internal/app'),
    );
    expect(buildAppSettings({ WEB_CONCURRENCY: 3 }, undefined).workers).toBe(3);
  });
});
