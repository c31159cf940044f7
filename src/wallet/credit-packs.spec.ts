import { checkEnvironment } from '../config/feature-environment';
import { parseCreditPacks, parsePlanCredits } from './credit-packs';
import { WalletEnvironment } from './wallet.config';

describe('CREDIT_PACKS and PLAN_CREDITS', () => {
  it('reads packs and plan credits', () => {
    expect(
      parseCreditPacks('[{"id":"starter","credits":1000,"amount":10,"currency":"usd"}]'),
    ).toEqual([{ id: 'starter', credits: 1000, amount: 10, currency: 'usd' }]);
    expect(parseCreditPacks('[]')).toEqual([]);
    expect(parsePlanCredits('{"BASIC":2000,"PRO":0}')).toEqual({ BASIC: 2000, PRO: 0 });
  });

  it.each([
    ['not json', /not JSON/],
    ['{}', /array/],
    ['[{"id":"a b","credits":1,"amount":1,"currency":"usd"}]', /id is/],
    ['[{"id":"a","credits":0,"amount":1,"currency":"usd"}]', /credits of a/],
    ['[{"id":"a","credits":1.5,"amount":1,"currency":"usd"}]', /credits of a/],
    ['[{"id":"a","credits":1,"amount":1.234,"currency":"usd"}]', /amount of a/],
    ['[{"id":"a","credits":1,"amount":0.4,"currency":"usd"}]', /amount of a/],
    ['[{"id":"a","credits":1,"amount":1,"currency":"eur"}]', /currency of a/],
    ['[{"id":"a","credits":1,"amount":1,"currency":"usd","x":1}]', /unknown field x/],
    [
      '[{"id":"a","credits":1,"amount":1,"currency":"usd"},{"id":"a","credits":2,"amount":2,"currency":"usd"}]',
      /listed twice/,
    ],
  ])('refuses CREDIT_PACKS %s', (raw, reason) => {
    expect(() => parseCreditPacks(raw)).toThrow(reason);
  });

  it.each([
    ['[]', /object/],
    ['{"FREE":1}', /not a paid plan/],
    ['{"PRO":-1}', /credits of PRO/],
    ['{"PRO":"many"}', /credits of PRO/],
  ])('refuses PLAN_CREDITS %s', (raw, reason) => {
    expect(() => parsePlanCredits(raw)).toThrow(reason);
  });

  it('fails the boot on a wrong value, naming the variable and the reason', () => {
    const { messages } = checkEnvironment(WalletEnvironment, {
      CREDIT_PACKS: '[{"id":"a","credits":1,"amount":1,"currency":"eur"}]',
      PLAN_CREDITS: '{"GOLD":1}',
    });
    expect(messages).toEqual([
      'CREDIT_PACKS: CREDIT_PACKS currency of a is one of usd, cny',
      'PLAN_CREDITS: PLAN_CREDITS GOLD is not a paid plan (BASIC, PRO)',
    ]);
    expect(checkEnvironment(WalletEnvironment, { CREDIT_PACKS: '' }).messages).toEqual([]);
  });
});
