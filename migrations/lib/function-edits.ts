// Editing the text of a PL/pgSQL function an earlier migration created, so that a later migration
// states only what it changes (its hooks) and the rule itself stays written once. Kept out of
// migrations/ itself: every file there is loaded as a migration.

/** One edit: `from`, which must occur exactly once in the function's text, becomes `to`. */
export type FunctionEdit = readonly [from: string, to: string];

/** `fn` (a `CREATE FUNCTION` text) as `CREATE OR REPLACE FUNCTION`: same name and arguments. */
export const orReplace = (fn: string): string =>
  fn.replace(/^CREATE FUNCTION/, 'CREATE OR REPLACE FUNCTION');

/**
 * `fn` with `edits` applied in order. Throws, naming `migration` and the fragment, when a `from`
 * occurs zero times or more than once: an edit never lands in the wrong place silently.
 */
export function editFunction(
  migration: string,
  fn: string,
  edits: readonly FunctionEdit[],
): string {
  return edits.reduce((text, [from, to]) => {
    if (text.split(from).length !== 2)
      throw new Error(`${migration}: edit point not unique: ${from}`);
    return text.replace(from, () => to);
  }, fn);
}
