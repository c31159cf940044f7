import { describeContent } from './mcp-content';

describe('describeContent', () => {
  it('joins text parts and describes the others in one line each', () => {
    expect(
      describeContent([
        { type: 'text', text: 'first' },
        { type: 'image', mimeType: 'image/png', data: Buffer.alloc(2048).toString('base64') },
        { type: 'resource', resource: { uri: 'file:///a.txt', text: 'inline text' } },
        {
          type: 'resource',
          resource: { uri: 'file:///b.bin', mimeType: 'application/pdf', blob: 'AAAA' },
        },
        { type: 'resource_link', uri: 'https://example.com/doc', name: 'doc' },
        { type: 'text', text: 'last' },
      ]),
    ).toBe(
      [
        'first',
        '[image image/png, 2048 bytes]',
        'inline text',
        '[resource file:///b.bin application/pdf, 3 bytes]',
        '[resource link: https://example.com/doc (doc)]',
        'last',
      ].join('\n\n'),
    );
  });

  it('falls back to the structured content as JSON when there are no parts', () => {
    expect(describeContent([], { temperature: 21.5 })).toBe('{"temperature":21.5}');
    expect(describeContent([])).toBe('');
  });
});
