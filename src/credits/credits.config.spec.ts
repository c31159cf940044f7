import { buildConfig } from '../config/app.config';

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
    expect(buildConfig({}).credits.pricing).toEqual({ mode: 'spec', markup: '1' });
    expect(buildConfig({ CREDIT_PRICING: '', CREDIT_MARKUP: '' }).credits.pricing).toEqual({
      mode: 'spec',
      markup: '1',
    });
  });

  it('reads tokens mode and a decimal markup, kept as written', () => {
    expect(
      buildConfig({ CREDIT_PRICING: 'tokens', CREDIT_MARKUP: '1.25' }).credits.pricing,
    ).toEqual({ mode: 'tokens', markup: '1.25' });
    expect(buildConfig({ CREDIT_MARKUP: '0.5' }).credits.pricing.markup).toBe('0.5');
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

  it('reads ANTHROPIC_PROMPT_CACHE, off by default', () => {
    expect(buildConfig({}).anthropic.promptCache).toBe(false);
    expect(buildConfig({ ANTHROPIC_PROMPT_CACHE: 'true' }).anthropic.promptCache).toBe(true);
  });
});
