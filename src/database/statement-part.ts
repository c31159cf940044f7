/**
 * Part of a statement that one module writes and another runs inside its own (for example the
 * saved exchange inside the settlement of a metered reply): common table expressions to add to a
 * `WITH`, their parameters (numbered from the placeholder index the part was built for), and an
 * expression over them for the statement's one result row, of type `T`.
 */
export interface StatementPart<T = unknown> {
  /** `name AS (…), …`, to follow the host statement's own CTEs. */
  ctes: string;
  params: unknown[];
  /** A scalar SQL expression, selected as the part's result; it reads back as `T`. */
  result: string;
  /** Never set: carries `T`, the type `result` reads back as, to the statement that runs it. */
  readonly resultType?: T;
}
