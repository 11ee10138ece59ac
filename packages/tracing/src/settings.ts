/**
 * Whether and how a hub process traces, from the standard OpenTelemetry variables only (CONTRACT
 * §6.20). Pure: no OpenTelemetry module is loaded to decide, so a hub without a collector pays
 * nothing. Everything else the variables say (sampler, batch sizes, headers, timeouts, resource
 * attributes, limits) the SDK and the exporter read themselves.
 */

/** The OTLP encodings the hub exports with; gRPC is not shipped (one HTTP exporter keeps the image small). */
export const TRACE_PROTOCOLS = ["http/protobuf", "http/json"] as const;
export type TraceProtocol = (typeof TRACE_PROTOCOLS)[number];

export interface TracingSettings {
  serviceName: string;
  protocol: TraceProtocol;
}

/** A variable with a value the hub cannot trace with: its message names the variable. */
export class TracingConfigError extends Error {
  override name = "TracingConfigError";
}

const present = (value: string | undefined): value is string => value !== undefined && value.trim() !== "";

/**
 * The settings, or `undefined` when tracing is off: no OTLP endpoint (the only way to turn it on),
 * `OTEL_SDK_DISABLED=true`, or `OTEL_TRACES_EXPORTER=none`.
 */
export function tracingSettings(env: Readonly<Record<string, string | undefined>>, defaultServiceName: string): TracingSettings | undefined {
  if (!present(env.OTEL_EXPORTER_OTLP_ENDPOINT) && !present(env.OTEL_EXPORTER_OTLP_TRACES_ENDPOINT)) return undefined;
  if (env.OTEL_SDK_DISABLED?.trim().toLowerCase() === "true") return undefined;
  const exporter = env.OTEL_TRACES_EXPORTER?.trim().toLowerCase();
  if (exporter === "none") return undefined;
  if (present(exporter) && exporter !== "otlp") {
    throw new TracingConfigError(`OTEL_TRACES_EXPORTER must be otlp or none (got "${env.OTEL_TRACES_EXPORTER}")`);
  }
  const protocolVariable = present(env.OTEL_EXPORTER_OTLP_TRACES_PROTOCOL) ? "OTEL_EXPORTER_OTLP_TRACES_PROTOCOL" : "OTEL_EXPORTER_OTLP_PROTOCOL";
  const protocol = (env[protocolVariable]?.trim() || "http/protobuf") as TraceProtocol;
  if (!TRACE_PROTOCOLS.includes(protocol)) {
    throw new TracingConfigError(`${protocolVariable} must be one of ${TRACE_PROTOCOLS.join(", ")} (got "${env[protocolVariable]}")`);
  }
  return { serviceName: present(env.OTEL_SERVICE_NAME) ? env.OTEL_SERVICE_NAME.trim() : defaultServiceName, protocol };
}
