import { Clock } from '../../common/clock/clock';
import type { SessionUser } from '../../common/auth/session-user';
import { ToolFailure } from '../tool-result';
import { calculatorTool } from './calculator.tool';
import { CalculatorWorkers } from './calculator-workers';
import { calculate, CalculationError } from './calculator.worker';
import { currentTimeTool, timeIn } from './current-time.tool';
import type { PluginsConfig } from '../plugins.config';

const user: SessionUser = { id: 'u', email: 'u@example.com', name: null, role: 'USER' };

describe('calculator', () => {
  it.each([
    ['0.1 + 0.2', '0.3'],
    ['2^100', '1267650600228229401496703205376'],
    ['1/3', '0.' + '3'.repeat(64)],
    ['(1.1 - 1) * 10', '1'],
    ['sqrt(16) + 2 * 3', '10'],
    ['10^60', '1' + '0'.repeat(60)],
    ['10^70', '1e+70'], // beyond the 64 significant digits: exponent notation
    ['x = 3; x * 2', '6'],
    ['[1, 2] * 2', '[2, 4]'],
    ['5 cm to inch', '1.968503937007874015748031496062992125984251968503937007874015748 inch'],
    ['2 pi', '6.283185307179586476925286766559005768394338798750211641949889184'],
    ['sin(pi / 2) + log(e) + log10(1000)', '5'],
    ['50% * 3', '1.5'],
    ['sqrt(-4)', '2i'],
    ['mod(17, 5) + round(2.5) + abs(-1)', '6'],
    ['dot([1, 2, 3], [4, 5, 6])', '32'],
    ['max(3, 7) > 5 ? 1 : 0', '1'],
    ['1 < 2 < 3', 'true'],
  ])('%s = %s', (expression, expected) => {
    expect(calculate(expression)).toBe(expected);
  });

  it.each([
    ['1/0', /not a finite number/],
    ['0/0', /not a finite number/],
    ['1 +', /Cannot evaluate/],
    // Building or reshaping matrices, matrix products
    ['a=resize([1],[240,240],1); size(a*a)', /Function resize is not available/],
    ['size(resize([1],[5000,5000]))', /Function size is not available/],
    ['matrix([1, 2])', /Function matrix is not available/],
    ['zeros(1000, 1000)', /Function zeros is not available/],
    ['ones(100000, 100000)', /Function ones is not available/],
    ['identity(1000)', /Function identity is not available/],
    ['[[1, 2], [3, 4]] * [[1, 2], [3, 4]]', /Matrices are not available/],
    ['[' + '1,'.repeat(64) + '1]', /at most 64 entries/],
    ['1:1000000', /Ranges/],
    ["[1, 2]'", /operator ' is not available/],
    // Indexing and assignment into a structure
    ['a = [1, 2]; a[1] = 2', /no indexes/],
    ['a = [1, 2]; a[1]', /Indexing/],
    ['a.b', /Indexing/],
    ['{a: 1}', /ObjectNode is not available/],
    // Functions: defined, taken as values, or reaching the parser, namespace or unit registry
    ['f(x) = x', /Defining functions/],
    ['f = sqrt; f(4)', /sqrt is not available as a value/],
    ['import({}, {override: true})', /Function import is not available/],
    ['evaluate("1+1")', /Function evaluate is not available/],
    ['parse("1")', /Function parse is not available/],
    ['createUnit("foo")', /Function createUnit is not available/],
    ['simplify("x+x")', /Function simplify is not available/],
    ['derivative("x^2", "x")', /Function derivative is not available/],
    // Growth with an argument
    ['1000000000!', /operator ! is not available/],
    ['factorial(1000000000)', /Function factorial is not available/],
    ['gamma(10^9)', /Function gamma is not available/],
    ['combinations(10^9, 10^8)', /Function combinations is not available/],
    ['1 << 1000000000', /operator << is not available/],
    ['"abc"', /Only numbers/],
  ])('refuses %s', (expression, message) => {
    expect(() => calculate(expression)).toThrow(CalculationError);
    expect(() => calculate(expression)).toThrow(message);
  });

  it('does not keep assignments between calls', () => {
    calculate('y = 5');
    expect(() => calculate('y + 1')).toThrow(/Undefined symbol y/);
  });

  describe('as a tool, through its worker', () => {
    const workers = new CalculatorWorkers({
      builtinTimeoutMs: 60_000,
      builtinMemoryMb: 128,
      builtinWorkers: 1,
    } as PluginsConfig);
    afterAll(() => workers.onApplicationShutdown());

    it('validates its arguments and answers a summary', async () => {
      const tool = calculatorTool(workers);
      await expect(tool.run({ expression: '0.1+0.2' }, { user })).resolves.toEqual({
        content: '0.3',
        summary: '0.1+0.2 = 0.3',
      });
      await expect(tool.run({ expression: 'resize([1], [9, 9])' }, { user })).rejects.toThrow(
        ToolFailure,
      );
      await expect(tool.run({}, { user })).rejects.toThrow(/Missing argument "expression"/);
      await expect(tool.run({ expression: 42 }, { user })).rejects.toThrow(/a string/);
      await expect(tool.run({ expression: '1+'.repeat(600) + '1' }, { user })).rejects.toThrow(
        /longer than 1000/,
      );
    });
  });
});

describe('current_time', () => {
  const at = new Date('2026-03-08T09:30:15.123Z');
  const clock = { now: () => at } as Clock;

  it('gives the UTC instant and the wall time in the zone', () => {
    expect(timeIn(at, 'Asia/Shanghai')).toEqual({
      iso: '2026-03-08T09:30:15.123Z',
      timeZone: 'Asia/Shanghai',
      local: '2026-03-08 17:30:15',
      utcOffset: '+08:00',
      weekday: 'Sunday',
    });
    expect(timeIn(at, 'America/New_York').local).toBe('2026-03-08 05:30:15'); // DST began at 07:00 UTC
    expect(timeIn(at, 'America/New_York').utcOffset).toBe('-04:00');
  });

  it('defaults to UTC through the clock', async () => {
    const out = await currentTimeTool(clock).run({}, { user });
    expect(JSON.parse(out.content)).toMatchObject({
      iso: '2026-03-08T09:30:15.123Z',
      timeZone: 'UTC',
      local: '2026-03-08 09:30:15',
      utcOffset: '+00:00',
    });
    expect(out.summary).toBe('2026-03-08 09:30:15 UTC (UTC+00:00)');
  });

  it('refuses an unknown zone', async () => {
    await expect(
      currentTimeTool(clock).run({ timeZone: 'Mars/Olympus' }, { user }),
    ).rejects.toThrow(/Unknown time zone "Mars\/Olympus"/);
    await expect(currentTimeTool(clock).run({ zone: 'UTC' }, { user })).rejects.toThrow(
      /Unknown argument/,
    );
  });
});
