import { nextRuns, parseSchedule, ScheduleError, shortestGapMinutes } from './schedule';

describe('task schedules (cron in an IANA zone)', () => {
  const from = new Date('2026-03-07T12:00:00Z');

  it('gives the next runs in the zone', () => {
    const runs = nextRuns({ cron: '0 8 * * *', timezone: 'Europe/Paris' }, 2, from);
    expect(runs.map((d) => d.toISOString())).toEqual([
      '2026-03-08T07:00:00.000Z',
      '2026-03-09T07:00:00.000Z',
    ]);
  });

  it('follows daylight saving time (New York springs forward on 2026-03-08)', () => {
    const runs = nextRuns({ cron: '0 9 * * *', timezone: 'America/New_York' }, 2, from);
    expect(runs.map((d) => d.toISOString())).toEqual([
      '2026-03-07T14:00:00.000Z', // EST, UTC-5
      '2026-03-08T13:00:00.000Z', // EDT, UTC-4
    ]);
  });

  it.each([
    ['* * * *', 'schedule.cron'],
    ['0 0 * * * *', 'schedule.cron'],
    ['61 * * * *', 'schedule.cron'],
    ['0 8 * * mon-', 'schedule.cron'],
    ['0 0 30 2 *', 'schedule.cron'],
  ])('refuses %p', (cron, field) => {
    expect(() => parseSchedule({ cron, timezone: 'UTC' })).toThrow(ScheduleError);
    try {
      parseSchedule({ cron, timezone: 'UTC' });
    } catch (err) {
      expect((err as ScheduleError).field).toBe(field);
    }
  });

  it('refuses a zone that is not IANA', () => {
    expect(() => parseSchedule({ cron: '0 8 * * *', timezone: 'Mars/Olympus' })).toThrow(/IANA/);
  });

  it('measures the shortest gap between runs', () => {
    expect(shortestGapMinutes({ cron: '*/5 * * * *', timezone: 'UTC' }, from)).toBe(5);
    expect(shortestGapMinutes({ cron: '0,10 9 * * *', timezone: 'UTC' }, from)).toBe(10);
    expect(shortestGapMinutes({ cron: '0 8 * * 1-5', timezone: 'UTC' }, from)).toBe(1440);
  });
});
