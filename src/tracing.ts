/**
 * OpenTelemetry, imported by main.ts before anything else, so the instrumentations
 * patch `http`, `express` and `pg` before they are loaded. Off, and nothing of the SDK is even
 * loaded, unless OTEL_EXPORTER_OTLP_ENDPOINT is set (OTLP over HTTP, JSON). Our own spans
 * (src/telemetry/spans.ts) go through @opentelemetry/api, a no-op without the SDK.
 */
let stop: (() => Promise<void>) | undefined;

if (process.env.OTEL_EXPORTER_OTLP_ENDPOINT) {
  // A synchronous require on purpose: an `import()` would run after the app's own imports.
  // eslint-disable-next-line @typescript-eslint/no-require-imports
  const sdk = require('./telemetry/sdk') as typeof import('./telemetry/sdk');
  sdk.startTracing();
  stop = sdk.stopTracing;
}

/** Flushes the last spans and stops the SDK (TelemetryModule, at shutdown); a no-op when off. */
export function stopTracing(): Promise<void> {
  return stop?.() ?? Promise.resolve();
}
