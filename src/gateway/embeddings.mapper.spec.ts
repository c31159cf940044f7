import { AppError, CommonErrorCode, ErrorCode } from '../common/errors/app-error';
import { ModelsErrorCode } from '../models/models.errors';
import { base64Vector, embeddingInputs, requireWithinContext } from './embeddings.mapper';

const codeOf = (fn: () => unknown): [ErrorCode, unknown] | undefined => {
  try {
    fn();
  } catch (err) {
    if (err instanceof AppError) return [err.code, err.details?.param];
    throw err;
  }
  return undefined;
};

describe('embeddingInputs', () => {
  it('takes a string or an array of strings', () => {
    expect(embeddingInputs('one')).toEqual(['one']);
    expect(embeddingInputs(['one', 'two'])).toEqual(['one', 'two']);
  });

  it('refuses token arrays as unsupported, anything else as invalid', () => {
    const unsupported = [ModelsErrorCode.UNSUPPORTED_PARAMETER, 'input'];
    const invalid = [CommonErrorCode.VALIDATION_FAILED, 'input'];
    expect(codeOf(() => embeddingInputs([1, 2]))).toEqual(unsupported);
    expect(codeOf(() => embeddingInputs([[1], [2]]))).toEqual(unsupported);
    for (const input of [null, 7, {}, '', [], [''], ['a', null], Array(257).fill('a')])
      expect([input, codeOf(() => embeddingInputs(input))]).toEqual([input, invalid]);
  });

  it('counts characters as code points against the cap', () => {
    const emoji = '😀'.repeat(100_000); // 200,000 UTF-16 units, 100,000 characters
    expect(embeddingInputs([emoji, 'b'.repeat(100_000)])).toHaveLength(2);
    expect(codeOf(() => embeddingInputs([emoji, 'b'.repeat(100_001)]))).toEqual([
      CommonErrorCode.VALIDATION_FAILED,
      'input',
    ]);
  });
});

describe('requireWithinContext', () => {
  const tokens = (text: string) => Math.ceil(text.length / 4);
  it('refuses an input over the model context, naming it', () => {
    expect(() => requireWithinContext(['a'.repeat(40)], 10, tokens)).not.toThrow();
    expect(() => requireWithinContext(['a', 'a'.repeat(41)], 10, tokens)).toThrow(/input\[1\]/);
  });
});

describe('base64Vector', () => {
  it('encodes little-endian float32, as OpenAI does', () => {
    const bytes = Buffer.from(base64Vector([1, -0.5, 0]), 'base64');
    expect([...bytes]).toEqual([0, 0, 0x80, 0x3f, 0, 0, 0, 0xbf, 0, 0, 0, 0]);
  });
});
