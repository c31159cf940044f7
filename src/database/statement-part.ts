/**
 * Part of a statement that one module writes and another runs inside its own (for example the
 * saved exchange inside the settlement of a metered reply): common table expressions to add to a
 * `WITH`, their parameters (numbered from the placeholder index the part was built for), and an
 * expression over them for the statement's one result row.
 */
export interface StatementPart {
  /** `name AS (…), …`, to follow the host statement's own CTEs. */
  ctes: string;
  params: unknown[];
  /** A scalar SQL expression, selected as the part's result. */
  result: string;
}
