import { Clock } from '../../common/clock/clock';
import type { SessionUser } from '../../common/auth/session-user';
import { ToolFailure } from '../tool-result';
import { calculate, calculatorTool } from './calculator.tool';
import { currentTimeTool, timeIn } from './current-time.tool';

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
  ])('%s = %s', (expression, expected) => {
    expect(calculate(expression)).toBe(expected);
  });

  it.each([
    ['1/0', /not a finite number/],
    ['0/0', /not a finite number/],
    ['1 +', /Cannot evaluate/],
    ['import({}, {override: true})', /import is not available/],
    ['evaluate("1+1")', /evaluate is not available/],
    ['parse("1")', /parse is not available/],
    ['createUnit("foo")', /createUnit is not available/],
    ['simplify("x+x")', /simplify is not available/],
    ['derivative("x^2", "x")', /derivative is not available/],
    ['1000000000!', /factorial is not available/],
    ['ones(100000, 100000)', /ones is not available/],
    ['f(x) = x', /no value/],
  ])('refuses %s', (expression, message) => {
    expect(() => calculate(expression)).toThrow(ToolFailure);
    expect(() => calculate(expression)).toThrow(message);
  });

  it('does not keep assignments between calls', () => {
    calculate('y = 5');
    expect(() => calculate('y + 1')).toThrow(/Undefined symbol y/);
  });

  it('validates its arguments and answers a summary', async () => {
    await expect(calculatorTool.run({ expression: '0.1+0.2' }, { user })).resolves.toEqual({
      content: '0.3',
      summary: '0.1+0.2 = 0.3',
    });
    await expect(calculatorTool.run({}, { user })).rejects.toThrow(/Missing argument "expression"/);
    await expect(calculatorTool.run({ expression: 42 }, { user })).rejects.toThrow(/a string/);
    await expect(
      calculatorTool.run({ expression: '1+'.repeat(600) + '1' }, { user }),
    ).rejects.toThrow(/longer than 1000/);
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
