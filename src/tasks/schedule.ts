import { Cron } from 'croner';

/** A task's schedule as stored: a standard 5-field cron expression read in an IANA zone. */
export interface TaskSchedule {
  cron: string;
  timezone: string;
}

/** Why a schedule was refused; `field` names the request property. */
export class ScheduleError extends Error {
  constructor(
    readonly field: 'schedule.cron' | 'schedule.timezone',
    message: string,
  ) {
    super(message);
  }
}

/** True for a zone name the runtime's IANA database knows (`Europe/Paris`, `UTC`). */
export function isIanaZone(zone: string): boolean {
  try {
    new Intl.DateTimeFormat('en', { timeZone: zone });
    return true;
  } catch {
    return false;
  }
}

/**
 * Parses and validates a schedule (croner, "5-part" mode: minute hour day-of-month month
 * day-of-week; day-of-month and day-of-week combine with OR, as in Vixie cron). Throws
 * ScheduleError for another field count, a bad field, an unknown zone, or an expression that
 * never fires.
 */
export function parseSchedule(schedule: TaskSchedule): Cron {
  if (!isIanaZone(schedule.timezone)) {
    throw new ScheduleError('schedule.timezone', 'schedule.timezone: not an IANA time zone');
  }
  if (schedule.cron.trim().split(/\s+/).length !== 5) {
    throw new ScheduleError(
      'schedule.cron',
      'schedule.cron: a standard cron expression has 5 fields (minute hour day month weekday)',
    );
  }
  let cron: Cron;
  try {
    cron = new Cron(schedule.cron.trim(), { timezone: schedule.timezone, mode: '5-part' });
  } catch (err) {
    throw new ScheduleError('schedule.cron', `schedule.cron: ${(err as Error).message}`);
  }
  if (!cron.nextRun(new Date())) {
    throw new ScheduleError('schedule.cron', 'schedule.cron: the expression never fires');
  }
  return cron;
}

/** The next `n` occurrences strictly after `from`. */
export function nextRuns(schedule: TaskSchedule, n: number, from: Date): Date[] {
  return parseSchedule(schedule).nextRuns(n, from);
}

/** The first occurrence strictly after `from`, or null for an expression that stopped firing. */
export function nextRun(schedule: TaskSchedule, from: Date): Date | null {
  return parseSchedule(schedule).nextRun(from);
}

/**
 * The shortest gap between consecutive occurrences in the next `sample` runs after `from`, in
 * minutes (Infinity with fewer than two runs). 200 runs cover every pattern that repeats within
 * a day at the plans' shortest interval (5 min: 288 a day would be needed only for one that is
 * compliant anyway).
 */
export function shortestGapMinutes(schedule: TaskSchedule, from: Date, sample = 200): number {
  const runs = nextRuns(schedule, sample, from);
  let min = Infinity;
  for (let i = 1; i < runs.length; i++) {
    min = Math.min(min, (runs[i].getTime() - runs[i - 1].getTime()) / 60_000);
  }
  return min;
}
