/**
 * The parameters of one statement, each placeholder made together with its value: `add(value)`
 * appends the value and returns its placeholder (`'$1'`, `'$2'`, …), so a statement with dynamic
 * parts or a long list never counts placeholders by hand. Pass `values` as the statement's
 * parameters.
 *
 * ```ts
 * const p = new SqlParams();
 * const sql = `SELECT … WHERE "userId" = ${p.add(userId)} LIMIT ${p.add(limit)}`;
 * await dataSource.query(sql, p.values);
 * ```
 *
 * `first`: how many placeholders the host statement already uses, for a part numbered after
 * them (its first `add` returns `$first+1`); `values` then holds only the part's own values.
 */
export class SqlParams {
  readonly values: unknown[] = [];

  constructor(private readonly first = 0) {}

  /** Appends `value` and returns its placeholder, `$n`. */
  add(value: unknown): string {
    this.values.push(value);
    return `$${this.first + this.values.length}`;
  }
}

/** A statement and its parameters, as a builder using SqlParams returns them. */
export interface SqlStatement {
  sql: string;
  params: unknown[];
}
