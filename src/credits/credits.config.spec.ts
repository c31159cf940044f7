import { buildConfig, sliceOf } from '../config/app.config';
import { creditsConfig } from './credits.config';

/** The `credits` slice built from `raw` with every registered slice, as at boot. */
const credits = (raw: Record<string, string>) => sliceOf(buildConfig(raw), creditsConfig);

/** The boot-time error message for `raw` environment variables, or '' when they are valid. */
const error = (raw: Record<string, string>): string => {
  try {
    buildConfig(raw);
  } catch (e) {
    return (e as Error).message;
  }
  return '';
};

/** CREDIT_PRICING and CREDIT_MARKUP: how a call's credits are computed. */
describe('credit pricing configuration', () => {
  it('defaults to the spec formula at markup 1', () => {
    expect(credits({}).pricing).toEqual({ mode: 'spec', markup: '1' });
    expect(credits({ CREDIT_PRICING: '', CREDIT_MARKUP: '' }).pricing).toEqual({
      mode: 'spec',
      markup: '1',
    });
  });

  it('reads tokens mode and a decimal markup, kept as written', () => {
    expect(credits({ CREDIT_PRICING: 'tokens', CREDIT_MARKUP: '1.25' }).pricing).toEqual({
      mode: 'tokens',
      markup: '1.25',
    });
    expect(credits({ CREDIT_MARKUP: '0.5' }).pricing.markup).toBe('0.5');
  });

  it('stops the start on another mode, or a markup that is not a decimal > 0', () => {
    expect(error({ CREDIT_PRICING: 'cheap' })).toContain('CREDIT_PRICING');
    for (const markup of ['0', '0.0', '-1', '1e3', 'abc', '.5']) {
      expect([markup, error({ CREDIT_MARKUP: markup })]).toEqual([
        markup,
        expect.stringContaining('CREDIT_MARKUP'),
      ]);
    }
  });
});
