import { AppError } from '../../common/errors/app-error';
import { imageOfUrl, splitContent } from './message-content';

const ORIGIN = 'https://chat.example.com';

describe('message content', () => {
  it('a string is the text; parts give the text joined and the images in order', () => {
    expect(splitContent('Hello', ORIGIN)).toEqual({ text: 'Hello', images: [] });
    const id = '3f0c1e9a-8a51-4b8e-9d5e-2c7b0a6f4d11';
    expect(
      splitContent(
        [
          { type: 'text', text: 'one' },
          { type: 'image', uploadId: id },
          { type: 'text', text: 'two' },
          { type: 'image', url: '/uploads/1-abc-cat.png' },
        ],
        ORIGIN,
      ),
    ).toEqual({ text: 'one\n\ntwo', images: [{ uploadId: id }, { filename: '1-abc-cat.png' }] });
  });

  it.each([
    ['data:image/png;base64,iVBORw0KGgo=', { mediaType: 'image/png', data: 'iVBORw0KGgo=' }],
    ['/uploads/17-ab-%E7%8C%AB.png?exp=1&sig=x', { filename: '17-ab-猫.png' }],
    [`${ORIGIN}/uploads/17-ab-cat.png`, { filename: '17-ab-cat.png' }],
  ])('takes %s', (url, expected) => {
    expect(imageOfUrl(url, ORIGIN)).toEqual(expected);
  });

  it.each([
    'https://evil.example.net/uploads/17-ab-cat.png', // another host, even with our path shape
    'http://169.254.169.254/latest/meta-data/',
    'data:image/svg+xml;base64,PHN2Zz4=', // not a type a model reads
    'data:text/html;base64,PGI+',
    'data:image/png,rawbytes', // not base64
    '/uploads/../etc/passwd/x',
    '/uploads/%E0%A4%A', // a broken escape
    'file:///etc/passwd',
  ])('refuses %s without fetching anything', (url) => {
    expect(() => imageOfUrl(url, ORIGIN)).toThrow(AppError);
  });
});
