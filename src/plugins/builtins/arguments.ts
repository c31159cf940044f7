import { ToolFailure } from '../tool-result';

/**
 * Small argument readers for built-in tools: each returns the typed value or throws ToolFailure
 * naming the argument, so the model learns what to fix.
 */
export function stringArg(
  args: Record<string, unknown>,
  name: string,
  opts: { maxLength: number; optional?: false },
): string;
export function stringArg(
  args: Record<string, unknown>,
  name: string,
  opts: { maxLength: number; optional: true },
): string | undefined;
export function stringArg(
  args: Record<string, unknown>,
  name: string,
  opts: { maxLength: number; optional?: boolean },
): string | undefined {
  const value = args[name];
  if (value === undefined || value === null) {
    if (opts.optional) return undefined;
    throw new ToolFailure(`Missing argument "${name}" (a string)`);
  }
  if (typeof value !== 'string') throw new ToolFailure(`Argument "${name}" must be a string`);
  if (!opts.optional && value.trim() === '')
    throw new ToolFailure(`Argument "${name}" must not be empty`);
  if (value.length > opts.maxLength)
    throw new ToolFailure(`Argument "${name}" is longer than ${opts.maxLength} characters`);
  return value;
}

/** An optional integer in `[min, max]`. */
export function intArg(
  args: Record<string, unknown>,
  name: string,
  opts: { min: number; max: number },
): number | undefined {
  const value = args[name];
  if (value === undefined || value === null) return undefined;
  if (typeof value !== 'number' || !Number.isInteger(value) || value < opts.min || value > opts.max)
    throw new ToolFailure(`Argument "${name}" must be an integer from ${opts.min} to ${opts.max}`);
  return value;
}

/** Refuses arguments the schema does not name (the schemas say `additionalProperties: false`). */
export function onlyArgs(args: Record<string, unknown>, names: string[]): void {
  const extra = Object.keys(args).filter((k) => !names.includes(k));
  if (extra.length) throw new ToolFailure(`Unknown argument(s): ${extra.join(', ')}`);
}
