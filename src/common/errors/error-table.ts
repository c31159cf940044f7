import type { HttpStatus } from '@nestjs/common';

/** What the application fixes per error code: the HTTP status of its answer. */
export interface ErrorSpec {
  status: HttpStatus;
}

/**
 * A module's codes with their specs, in its `<module>.errors.ts`. Typed by the module's code enum,
 * so a code without a status does not compile.
 */
export type ErrorTable<C extends string> = { readonly [K in C]: ErrorSpec };

/**
 * Every module's table in one, for src/app-errors.ts. Throws on a code two tables define (the
 * second would silently win), naming the code, so the start-up and every test fail.
 */
export function mergeErrorTables(
  ...tables: readonly ErrorTable<string>[]
): Readonly<Record<string, ErrorSpec>> {
  const merged: Record<string, ErrorSpec> = {};
  for (const table of tables) {
    for (const [code, spec] of Object.entries(table)) {
      if (code in merged) throw new Error(`Error code ${code} is defined by two modules`);
      merged[code] = spec;
    }
  }
  return merged;
}

/**
 * The application's error table, provided by ErrorsModule.forRoot (assembled in
 * src/app-errors.ts): common reads the statuses of codes it cannot import.
 */
export class ErrorCatalogue {
  constructor(private readonly table: Readonly<Record<string, ErrorSpec>>) {}

  /** Every code, in the order of the tables. */
  get codes(): string[] {
    return Object.keys(this.table);
  }

  /** The status of `code`; 500 for a code no table defines (the type checker prevents it). */
  status(code: string): HttpStatus {
    return this.table[code]?.status ?? 500;
  }
}
