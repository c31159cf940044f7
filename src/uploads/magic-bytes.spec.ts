import { AppError } from '../common/errors/app-error';
import { UPLOAD_CONTENT_TYPES } from './uploads.config';
import { checkContentType, detectContentType } from './magic-bytes';

const PNG = Buffer.from([0x89, 0x50, 0x4e, 0x47, 0x0d, 0x0a, 0x1a, 0x0a, 0, 0, 0, 13]);
const JPEG = Buffer.from([0xff, 0xd8, 0xff, 0xe0, 0, 16]);
const GIF = Buffer.from('GIF89a\x01\x00', 'latin1');
const WEBP = Buffer.concat([Buffer.from('RIFF'), Buffer.alloc(4), Buffer.from('WEBPVP8 ')]);
const PDF = Buffer.from('%PDF-1.7\n');
const ALL = UPLOAD_CONTENT_TYPES;

const code = (fn: () => unknown): string | undefined => {
  try {
    fn();
  } catch (e) {
    return e instanceof AppError ? e.code : 'other';
  }
  return undefined;
};

describe('detectContentType', () => {
  it.each([
    ['png', PNG, 'image/png'],
    ['jpeg', JPEG, 'image/jpeg'],
    ['gif', GIF, 'image/gif'],
    ['webp', WEBP, 'image/webp'],
    ['pdf', PDF, 'application/pdf'],
    ['utf-8 text', Buffer.from('héllo 世界\n'), 'text/plain'],
    ['empty', Buffer.alloc(0), 'text/plain'],
    ['NUL bytes', Buffer.from('ab\0cd'), null],
    ['invalid utf-8', Buffer.from([0x61, 0xc3, 0x28]), null],
    ['RIFF that is not WEBP', Buffer.from('RIFF\0\0\0\0WAVEfmt '), null],
  ])('%s', (_n, head, want) => expect(detectContentType(head, true)).toBe(want));

  it('accepts a character cut at the end of a partial head, not of a whole file', () => {
    const cut = Buffer.from('世').subarray(0, 2);
    expect(detectContentType(cut, false)).toBe('text/plain');
    expect(detectContentType(cut, true)).toBeNull();
  });
});

describe('checkContentType', () => {
  it('returns the sniffed type when claims agree', () => {
    expect(checkContentType(PNG, true, { declaredType: 'image/png', fileName: 'a.png' }, ALL)).toBe(
      'image/png',
    );
    const octet = { declaredType: 'application/octet-stream', fileName: 'blob' };
    expect(checkContentType(JPEG, true, octet, ALL)).toBe('image/jpeg');
    const jpg = { declaredType: 'image/jpg', fileName: 'a.JPG' };
    expect(checkContentType(JPEG, true, jpg, ALL)).toBe('image/jpeg');
  });

  it('stores text claimed as HTML, CSV or JSON as text/plain', () => {
    const html = Buffer.from('<script>alert(1)</script>');
    for (const declaredType of ['text/html', 'text/csv', 'application/json'])
      expect(checkContentType(html, true, { declaredType, fileName: 'x' }, ALL)).toBe('text/plain');
  });

  it.each([
    ['a .png name with text bytes', Buffer.from('hello'), 'image/png', 'a.png'],
    ['a .png name sent as octet-stream', Buffer.from('hello'), 'application/octet-stream', 'a.png'],
    ['PNG bytes claimed as a PDF', PNG, 'application/pdf', 'a.pdf'],
    ['PNG bytes named .txt', PNG, 'text/plain', 'a.txt'],
    ['text claimed as SVG', Buffer.from('<svg/>'), 'image/svg+xml', 'a.svg'],
    ['binary bytes', Buffer.from([0, 1, 2, 3]), 'application/octet-stream', 'a.bin'],
  ])('refuses %s with 415', (_n, head, declaredType, fileName) => {
    expect(code(() => checkContentType(head, true, { declaredType, fileName }, ALL))).toBe(
      'UNSUPPORTED_MEDIA_TYPE',
    );
  });

  it('refuses a known type that is not allowed', () => {
    const claim = { declaredType: 'application/pdf', fileName: 'a.pdf' };
    expect(code(() => checkContentType(PDF, true, claim, ['image/png']))).toBe(
      'UNSUPPORTED_MEDIA_TYPE',
    );
  });
});
