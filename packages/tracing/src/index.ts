/**
 * Tracing for the hub's processes (CONTRACT §6.20), configured only by the standard `OTEL_*`
 * variables and started only when an OTLP endpoint is set.
 *
 * This entry point loads no OpenTelemetry module: `startTracing` imports the SDK (./sdk) only when
 * tracing is on, so a hub without a collector loads, patches and records nothing. Callers reach the
 * tracer through {@link activeTracing}, which is `undefined` when tracing is off: every traced path
 * costs one `undefined` check then.
 *
 * Start it first, before anything imports `node:http`, `express`, `pg` or `ioredis`: the
 * instrumentations can patch only modules loaded after them, which is why each app's `main.ts`
 * calls {@link startTracingOrExit} and only then imports the rest dynamically.
 */
import type { HubTracing } from "./hub-tracing";
import { tracingSettings, TracingConfigError } from "./settings";

export type { HubTracing, JobRun, JobSpanOptions, OpenSpan, TraceLogFields } from "./hub-tracing";
export { isSampled, parseTraceparent, runSpanId, runTraceContext, type StoredTraceContext } from "./trace-context";
export { tracingSettings, TracingConfigError, TRACE_PROTOCOLS, type TraceProtocol, type TracingSettings } from "./settings";

let active: HubTracing | undefined;

/** The process's tracer, or `undefined` when tracing is off (no endpoint set) or not started. */
export function activeTracing(): HubTracing | undefined {
  return active;
}

/**
 * Starts tracing when the variables ask for it; resolves with the tracer, or `undefined` when off.
 * Throws {@link TracingConfigError} naming a variable the hub cannot trace with.
 */
export async function startTracing(
  defaultServiceName: string,
  env: Readonly<Record<string, string | undefined>> = process.env,
): Promise<HubTracing | undefined> {
  if (active) return active;
  const settings = tracingSettings(env, defaultServiceName);
  if (!settings) return undefined;
  const { startSdkTracing } = await import("./sdk");
  active = startSdkTracing(settings);
  return active;
}

/**
 * {@link startTracing} for an app's `main.ts`: a bad variable is one line on stderr, prefixed with
 * the app's name, and exit 1, as for every other variable (CONTRACT §5).
 */
export async function startTracingOrExit(app: string): Promise<HubTracing | undefined> {
  try {
    return await startTracing(`automation-hub-${app}`);
  } catch (error) {
    process.stderr.write(`${app}: ${error instanceof TracingConfigError ? error.message : `tracing could not start: ${String(error)}`}\n`);
    process.exit(1);
  }
}
