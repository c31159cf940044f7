import { OTLPTraceExporter } from '@opentelemetry/exporter-trace-otlp-http';
import { ExpressInstrumentation, ExpressLayerType } from '@opentelemetry/instrumentation-express';
import { HttpInstrumentation } from '@opentelemetry/instrumentation-http';
import { PgInstrumentation } from '@opentelemetry/instrumentation-pg';
import { UndiciInstrumentation } from '@opentelemetry/instrumentation-undici';
import { NodeSDK } from '@opentelemetry/sdk-node';

let sdk: NodeSDK | undefined;

/**
 * Starts the Node SDK with the OTLP/HTTP trace exporter (OTEL_EXPORTER_OTLP_ENDPOINT, and the
 * other standard OTEL_* variables: OTEL_SERVICE_NAME, OTEL_BSP_SCHEDULE_DELAY, …) and the
 * instrumentations of incoming and outgoing HTTP, Express, PostgreSQL and fetch/undici (the
 * provider SDKs call through fetch). An incoming `traceparent` is continued (W3C propagation).
 */
export function startTracing(): void {
  if (sdk) return;
  sdk = new NodeSDK({
    serviceName: process.env.OTEL_SERVICE_NAME ?? 'ai-chat-backend',
    traceExporter: new OTLPTraceExporter(),
    instrumentations: [
      new HttpInstrumentation({
        // Liveness probes every few seconds would drown the traces.
        ignoreIncomingRequestHook: (req) => req.url === '/health/live',
      }),
      // Route handlers only: a span per middleware (helmet, cookies, body parsers…) is noise.
      new ExpressInstrumentation({ ignoreLayersType: [ExpressLayerType.MIDDLEWARE] }),
      new PgInstrumentation(),
      new UndiciInstrumentation(),
    ],
  });
  sdk.start();
}

/** Flushes and stops the SDK (at shutdown, before the process exits); a no-op when off. */
export async function stopTracing(): Promise<void> {
  const running = sdk;
  sdk = undefined;
  await running?.shutdown();
}
