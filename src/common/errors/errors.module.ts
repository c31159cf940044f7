import { type DynamicModule, Global, Module } from '@nestjs/common';
import { ErrorPresenter } from './error-presenter';
import { ErrorCatalogue, type ErrorSpec } from './error-table';
import { type WireErrorFormat, WireErrorFormats } from './wire-error-formats';

/** What the application registers: its codes and the wire formats of its protocols. */
export interface ErrorsOptions {
  /** Every code with its spec: the merged module tables (src/app-errors.ts). */
  table: Readonly<Record<string, ErrorSpec>>;
  /** The error shapes of other protocols, by path prefix (the gateway's `/v1`). */
  formats: readonly WireErrorFormat[];
}

/**
 * Makes ErrorPresenter (the error filter and the AI streams), the error table and the wire
 * formats available to every module. Common imports no feature: the application hands them in.
 */
@Global()
@Module({})
export class ErrorsModule {
  static forRoot(options: ErrorsOptions): DynamicModule {
    return {
      module: ErrorsModule,
      providers: [
        ErrorPresenter,
        { provide: ErrorCatalogue, useValue: new ErrorCatalogue(options.table) },
        { provide: WireErrorFormats, useValue: new WireErrorFormats(options.formats) },
      ],
      exports: [ErrorPresenter, ErrorCatalogue, WireErrorFormats],
    };
  }
}
