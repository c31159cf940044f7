import type { Type } from '@nestjs/common';
import type { PresentedError } from './error-presenter';

/**
 * Another protocol's error shape (OpenAI's, Anthropic's), declared by the module that serves
 * that protocol and registered through ErrorsModule.forRoot. Chosen by path, not by route, so
 * errors raised before routing (an unreadable body, an unknown route, a refused credential)
 * answer in the protocol's shape too.
 */
export interface WireErrorFormat {
  /** The path prefix it covers: the prefix itself and every path under it (`/v1`). */
  readonly prefix: string;
  /** The error body; `param` is the request field at fault, null when unknown. */
  body(error: PresentedError, param: string | null): object;
  /** The DTO documenting that body: the OpenAPI document uses it for the prefix's errors. */
  readonly schema: Type<unknown>;
}

/** The registered wire formats: the one covering a path, the longest prefix winning. */
export class WireErrorFormats {
  constructor(readonly all: readonly WireErrorFormat[]) {}

  /** The format of `path` (without its query string), or undefined for our own envelopes. */
  for(path: string): WireErrorFormat | undefined {
    let found: WireErrorFormat | undefined;
    for (const format of this.all) {
      const covers = path === format.prefix || path.startsWith(`${format.prefix}/`);
      if (covers && format.prefix.length > (found?.prefix.length ?? -1)) found = format;
    }
    return found;
  }
}
