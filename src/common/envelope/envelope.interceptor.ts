import { CallHandler, ExecutionContext, Injectable, NestInterceptor } from '@nestjs/common';
import type { Request } from 'express';
import { map, Observable } from 'rxjs';
import { envelopeFor, Page } from './envelope';

/**
 * Wraps successful answers of envelope-B routes as `{success: true, data}` (a Page adds
 * `nextCursor`; an empty result is `{success: true}`). Envelope-C routes pass through.
 */
@Injectable()
export class EnvelopeInterceptor implements NestInterceptor {
  intercept(context: ExecutionContext, next: CallHandler): Observable<unknown> {
    if (context.getType() !== 'http') return next.handle();
    const req = context.switchToHttp().getRequest<Request>();
    if (envelopeFor(req.path) !== 'B') return next.handle();
    return next.handle().pipe(
      map((body: unknown) => {
        if (body instanceof Page)
          return { success: true, data: body.data, nextCursor: body.nextCursor };
        return body === undefined ? { success: true } : { success: true, data: body };
      }),
    );
  }
}
