import { type Attributes, context, SpanStatusCode, trace } from '@opentelemetry/api';
import type { NextFunction, Request, Response } from 'express';

const tracer = trace.getTracer('ai-chat-backend');

/**
 * Runs `fn` inside a span named `name` (ours: credits.admit, ai.provider.call, credits.settle,
 * chats.saveExchange, webhook.handle). An error is recorded on the span and rethrown. Without
 * the SDK (OTEL_EXPORTER_OTLP_ENDPOINT unset) the span is a no-op object.
 */
export function span<T>(name: string, fn: () => Promise<T>, attributes?: Attributes): Promise<T> {
  return tracer.startActiveSpan(name, { attributes }, async (s) => {
    try {
      return await fn();
    } catch (err) {
      s.recordException(err instanceof Error ? err : String(err));
      s.setStatus({ code: SpanStatusCode.ERROR });
      throw err;
    } finally {
      s.end();
    }
  });
}

/** Method decorator: each call of the (async) method runs inside a span named `name`. */
export function Traced(name: string): MethodDecorator {
  return (_target, _key, descriptor: PropertyDescriptor) => {
    const method = descriptor.value as (...args: unknown[]) => Promise<unknown>;
    descriptor.value = function (this: unknown, ...args: unknown[]) {
      return span(name, () => method.apply(this, args));
    };
  };
}

/** The active trace's ids for every log line (the pino mixin); empty when not traced. */
export function traceLogFields(): { trace_id?: string; span_id?: string } {
  const ctx = trace.getSpan(context.active())?.spanContext();
  if (!ctx || !trace.isSpanContextValid(ctx)) return {};
  return { trace_id: ctx.traceId, span_id: ctx.spanId };
}

/**
 * Express middleware: answers with a `traceparent` header naming the request's server span, so
 * a client (or support) can find the trace of a response. Nothing when not traced.
 */
export function traceparentHeader(_req: Request, res: Response, next: NextFunction): void {
  const ctx = trace.getSpan(context.active())?.spanContext();
  if (ctx && trace.isSpanContextValid(ctx)) {
    const flags = ctx.traceFlags.toString(16).padStart(2, '0');
    res.setHeader('traceparent', `00-${ctx.traceId}-${ctx.spanId}-${flags}`);
  }
  next();
}
