import { chmodSync, mkdirSync, mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { assertReachableByPostgresUser, EmbeddedPostgresAccessError } from './postgres-user-access';

/**
 * As root, the embedded server runs as the `postgres` OS user, which must enter its data and
 * binaries folders. Not root: PostgreSQL runs as this user, and nothing is checked.
 */
describe('assertReachableByPostgresUser', () => {
  const root = process.getuid?.() === 0;
  let open: string;
  let closed: string;

  beforeAll(() => {
    open = mkdtempSync(join(tmpdir(), 'pg-open-'));
    chmodSync(open, 0o755);
    mkdirSync(join(open, 'bin'));
    mkdirSync(join(open, 'pg'));
    closed = mkdtempSync(join(tmpdir(), 'pg-closed-')); // mkdtemp makes it 0700
    mkdirSync(join(closed, 'pg'));
    mkdirSync(join(closed, 'bin'));
  });
  afterAll(() => {
    rmSync(open, { recursive: true, force: true });
    rmSync(closed, { recursive: true, force: true });
  });

  it('accepts folders every user can enter', () => {
    expect(() => assertReachableByPostgresUser(join(open, 'pg'), join(open, 'bin'))).not.toThrow();
  });

  it('names the blocked folder on the way to the data directory, and the three fixes', () => {
    const check = () =>
      assertReachableByPostgresUser(join(closed, 'pg'), join(open, 'bin'), 'EMBEDDED_PG_TEST_DIR');
    if (!root) return expect(check).not.toThrow();
    expect(check).toThrow(EmbeddedPostgresAccessError);
    let message = '';
    try {
      check();
    } catch (err) {
      message = (err as Error).message;
    }
    expect(message).toContain(`cannot enter ${closed},`);
    expect(message).toContain('DATABASE_URL');
    expect(message).toContain('set EMBEDDED_PG_TEST_DIR');
    expect(message).toContain('move the checkout');
    expect(message.split('\n')).toHaveLength(1);
  });

  it('says when the binaries themselves are out of reach (moving the data would not help)', () => {
    const check = () => assertReachableByPostgresUser(join(open, 'pg'), join(closed, 'bin'));
    if (!root) return expect(check).not.toThrow();
    expect(check).toThrow(/cannot enter .*, where its binaries are installed/);
    expect(check).toThrow(/set DATABASE_URL .* or move the checkout/);
    expect(check).not.toThrow(/EMBEDDED_PG_DIR/);
  });
});
