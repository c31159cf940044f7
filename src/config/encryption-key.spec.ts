import { mkdtempSync, readFileSync, statSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { resolveEncryptionKey } from './encryption-key';

describe('resolveEncryptionKey', () => {
  const dir = mkdtempSync(join(tmpdir(), 'enc-key-'));

  it('generates a 32-byte key once into the file (0600), warning once, and reuses it', () => {
    const file = join(dir, 'nested', 'encryption-key');
    const warn = jest.fn();
    const key = resolveEncryptionKey(undefined, file, warn);
    expect(Buffer.from(key, 'base64')).toHaveLength(32);
    expect(readFileSync(file, 'utf8')).toBe(key);
    expect(statSync(file).mode & 0o777).toBe(0o600);
    expect(resolveEncryptionKey(undefined, file, warn)).toBe(key);
    expect(warn).toHaveBeenCalledTimes(1);
    expect(warn.mock.calls[0][0]).not.toContain(key);
  });

  it('prefers the configured key, and refuses a file holding something else', () => {
    const file = join(dir, 'bad');
    writeFileSync(file, 'short');
    expect(resolveEncryptionKey('configured', file, jest.fn())).toBe('configured');
    expect(() => resolveEncryptionKey(undefined, file, jest.fn())).toThrow(/32-byte base64 key/);
  });
});
