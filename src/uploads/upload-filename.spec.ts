import {
  displayName,
  isStoredFileName,
  MAX_NAME_BYTES,
  sanitizeFileName,
  storedFileName,
} from './upload-filename';

const HEX = '0123456789abcdef'.repeat(2);

describe('sanitizeFileName', () => {
  it.each([
    ['cat.png', 'cat.png'],
    ['../../etc/passwd', 'passwd'],
    ['..\\..\\windows\\win.ini', 'win.ini'],
    ['C:\\Users\\ada\\report.pdf', 'report.pdf'],
    ['.htaccess', 'htaccess'],
    ['...', 'file'],
    ['..', 'file'],
    ['', 'file'],
    ['/', 'file'],
    ['a..b...c.txt', 'a.b.c.txt'],
    ['照片 (1).PNG', '照片_(1).PNG'],
    ['résumé.pdf', 'résumé.pdf'],
    ['e\u0301.txt', 'é.txt'],
    ['evil\u202egnp.exe', 'evilgnp.exe'],
    ['nul\u0000byte\n.txt', 'nulbyte.txt'],
    ['a%2e%2e%2fb.txt', 'a_2e_2e_2fb.txt'],
    ['what?#is<this>"x".txt', 'what_is_this_x_.txt'],
    ['trailing dots...', 'trailing_dots'],
  ])('%j → %j', (raw, want) => {
    expect(sanitizeFileName(raw)).toBe(want);
  });

  it('cuts long names to the byte limit, keeping the extension', () => {
    const long = sanitizeFileName('长'.repeat(200) + '.jpeg');
    expect(Buffer.byteLength(long)).toBeLessThanOrEqual(MAX_NAME_BYTES);
    expect(long.endsWith('.jpeg')).toBe(true);
    expect(long.startsWith('长长')).toBe(true);
    const noExt = sanitizeFileName('x'.repeat(500) + '.' + 'y'.repeat(40));
    expect(Buffer.byteLength(noExt)).toBeLessThanOrEqual(MAX_NAME_BYTES);
  });

  it('is idempotent', () => {
    for (const raw of ['../a b.png', '長'.repeat(90) + '.txt', '._x_.', 'a\u0301'.repeat(80)]) {
      const once = sanitizeFileName(raw);
      expect(sanitizeFileName(once)).toBe(once);
    }
  });
});

describe('storedFileName', () => {
  it('is `<timestamp>-<32 hex digits>-<sanitised name>`', () => {
    const random = Buffer.from(HEX, 'hex');
    expect(storedFileName(1747700000000, '../照片 (1).PNG', random)).toBe(
      `1747700000000-${HEX}-照片_(1).PNG`,
    );
  });

  it('draws 128 fresh random bits per name', () => {
    const names = new Set(Array.from({ length: 50 }, () => storedFileName(1, 'same.txt')));
    expect(names.size).toBe(50);
    for (const n of names) expect(n).toMatch(/^1-[0-9a-f]{32}-same\.txt$/);
  });

  it('stays within 255 bytes and is a stored name for the longest original names', () => {
    for (const raw of ['长'.repeat(300) + '.jpeg', 'x'.repeat(1000), '𝔸'.repeat(100) + '.txt']) {
      const name = storedFileName(Number.MAX_SAFE_INTEGER, raw);
      expect(Buffer.byteLength(name)).toBeLessThanOrEqual(255);
      expect(isStoredFileName(name)).toBe(true);
    }
  });
});

describe('isStoredFileName', () => {
  it.each([
    `1747700000000-${HEX}-cat.png`,
    `1747700000000-${HEX}-照片_(1).PNG`,
    `1-${HEX}-file`,
    // Stored before names had a random part: still downloadable by their owners.
    '1747700000000-cat.png',
    '1747700000000-照片_(1).PNG',
    '1-file',
  ])('accepts %j', (n) => expect(isStoredFileName(n)).toBe(true));
  it.each([
    '../secret.txt',
    '1747700000000-../x',
    '1747700000000-..',
    '1747700000000-a/b',
    '1747700000000-a\\b',
    '1747700000000-.env',
    '1747700000000-a%2fb',
    'cat.png',
    '-cat.png',
    '1747700000000-a\u0000b',
    `1-${'x'.repeat(300)}`,
    `1747700000000-${HEX}-../x`,
    `1747700000000-${HEX}-a%2fb`,
    `1-${HEX}-${'x'.repeat(250)}`,
  ])('refuses %j', (n) => expect(isStoredFileName(n)).toBe(false));
});

describe('displayName', () => {
  it('keeps the base name without control characters', () => {
    expect(displayName('../dir/My "report"\r\n.pdf')).toBe('My "report".pdf');
    expect(displayName('')).toBe('file');
  });
});
