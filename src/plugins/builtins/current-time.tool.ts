import type { Clock } from '../../common/clock/clock';
import type { BuiltinTool, ToolOutput } from '../builtin-tool';
import { ToolFailure } from '../tool-result';
import { onlyArgs, stringArg } from './arguments';

/** What `current_time` answers (as JSON text). */
export interface CurrentTime {
  /** The instant in UTC, ISO 8601 with milliseconds. */
  iso: string;
  timeZone: string;
  /** Wall time in `timeZone`, `YYYY-MM-DD HH:mm:ss`. */
  local: string;
  /** The zone's offset from UTC at that instant, `+08:00`. */
  utcOffset: string;
  /** English weekday in `timeZone`. */
  weekday: string;
}

/**
 * The time `now` in the IANA zone `timeZone`. Throws ToolFailure when the zone is unknown.
 */
export function timeIn(now: Date, timeZone: string): CurrentTime {
  let parts: Intl.DateTimeFormatPart[];
  try {
    parts = new Intl.DateTimeFormat('en-US', {
      timeZone,
      hourCycle: 'h23',
      year: 'numeric',
      month: '2-digit',
      day: '2-digit',
      hour: '2-digit',
      minute: '2-digit',
      second: '2-digit',
      weekday: 'long',
      timeZoneName: 'longOffset',
    }).formatToParts(now);
  } catch {
    throw new ToolFailure(`Unknown time zone "${timeZone}" (use an IANA name like Asia/Shanghai)`);
  }
  const p = Object.fromEntries(parts.map((x) => [x.type, x.value]));
  const offset = p.timeZoneName === 'GMT' ? '+00:00' : p.timeZoneName.replace('GMT', '');
  return {
    iso: now.toISOString(),
    // The canonical spelling (`asia/shanghai` → `Asia/Shanghai`).
    timeZone: new Intl.DateTimeFormat('en-US', { timeZone }).resolvedOptions().timeZone,
    local: `${p.year}-${p.month}-${p.day} ${p.hour}:${p.minute}:${p.second}`,
    utcOffset: offset,
    weekday: p.weekday,
  };
}

/** The `current_time` built-in: {timeZone?} (default UTC) → the time there, from `clock`. */
export function currentTimeTool(clock: Clock): BuiltinTool {
  return {
    name: 'current_time',
    reads: 'arguments',
    description:
      'The current date and time: the UTC instant and the wall time in an IANA time zone (default UTC).',
    parameters: {
      type: 'object',
      properties: {
        timeZone: {
          type: 'string',
          maxLength: 64,
          description: 'IANA time zone such as "Europe/Paris" (default "UTC")',
        },
      },
      additionalProperties: false,
    },
    async run(args): Promise<ToolOutput> {
      onlyArgs(args, ['timeZone']);
      const zone = stringArg(args, 'timeZone', { maxLength: 64, optional: true }) || 'UTC';
      const t = timeIn(clock.now(), zone);
      return {
        content: JSON.stringify(t),
        summary: `${t.local} ${t.timeZone} (UTC${t.utcOffset})`,
      };
    },
  };
}
