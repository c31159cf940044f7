import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { ERROR_TABLE, ERROR_TABLES, WIRE_ERROR_FORMATS } from './app-errors';
import { mergeErrorTables } from './common/errors/error-table';
import { WireErrorFormats } from './common/errors/wire-error-formats';
import { i18nDir } from './i18n/i18n-dir';
import { LOCALES } from './i18n/locale';

const messages = (locale: string) =>
  JSON.parse(readFileSync(join(i18nDir(), locale, 'errors.json'), 'utf8')) as Record<
    string,
    string
  >;

describe("the application's error codes", () => {
  const codes = Object.keys(ERROR_TABLE).sort();

  it('are defined once: no code in two modules', () => {
    const defined = ERROR_TABLES.flatMap((table) => Object.keys(table));
    expect(defined.sort()).toEqual(codes);
    expect(() => mergeErrorTables({ A: { status: 400 } }, { B: { status: 404 } })).not.toThrow();
    expect(() => mergeErrorTables({ A: { status: 400 } }, { A: { status: 404 } })).toThrow(
      'Error code A is defined by two modules',
    );
  });

  it('each have an HTTP error status', () => {
    for (const code of codes)
      expect([code, ERROR_TABLE[code as keyof typeof ERROR_TABLE].status]).toEqual([
        code,
        expect.any(Number),
      ]);
    const statuses = Object.values(ERROR_TABLE).map((spec) => spec.status);
    expect(statuses.every((s) => s >= 400 && s <= 599)).toBe(true);
  });

  it.each(LOCALES)('each have a message in %s, and no message is of an unknown code', (locale) => {
    expect(Object.keys(messages(locale)).sort()).toEqual(codes);
  });
});

describe('the wire error formats', () => {
  const formats = new WireErrorFormats(WIRE_ERROR_FORMATS);
  const schemaOf = (path: string) => formats.for(path)?.schema.name;

  it("answer /v1 in OpenAI's shape and /v1/messages in Anthropic's, the longer prefix winning", () => {
    expect(schemaOf('/v1')).toBe('OpenAiErrorDto');
    expect(schemaOf('/v1/chat/completions')).toBe('OpenAiErrorDto');
    expect(schemaOf('/v1/unknown/route')).toBe('OpenAiErrorDto');
    expect(schemaOf('/v1/messagesx')).toBe('OpenAiErrorDto');
    expect(schemaOf('/v1/messages')).toBe('AnthropicErrorDto');
    expect(schemaOf('/v1/messages/count_tokens')).toBe('AnthropicErrorDto');
  });

  it('leave every other path to our own envelopes', () => {
    for (const path of ['/', '/v1x', '/v2/chat', '/api/chats', '/api/v1/messages'])
      expect(schemaOf(path)).toBeUndefined();
  });

  it('do not depend on the order they are registered in', () => {
    const reversed = new WireErrorFormats([...WIRE_ERROR_FORMATS].reverse());
    expect(reversed.for('/v1/messages')?.schema.name).toBe('AnthropicErrorDto');
    expect(reversed.for('/v1/models')?.schema.name).toBe('OpenAiErrorDto');
  });
});
