import { describe, expect, it } from "vitest";
import { activeTracing, startTracing } from "./index";
import { tracingSettings, TracingConfigError } from "./settings";

describe("tracing settings", () => {
  it("when no OTLP endpoint is set, then tracing is off and nothing starts", async () => {
    expect(tracingSettings({ OTEL_SERVICE_NAME: "x", OTEL_EXPORTER_OTLP_PROTOCOL: "grpc" }, "automation-hub-api")).toBeUndefined();
    await expect(startTracing("automation-hub-api", {})).resolves.toBeUndefined();
    expect(activeTracing()).toBeUndefined();
  });

  it("when an endpoint is set, then protobuf is the default, the app's name the default service name, and JSON may be chosen", () => {
    expect(tracingSettings({ OTEL_EXPORTER_OTLP_ENDPOINT: "http://collector:4318" }, "automation-hub-api")).toEqual({
      serviceName: "automation-hub-api",
      protocol: "http/protobuf",
    });
    expect(
      tracingSettings(
        { OTEL_EXPORTER_OTLP_TRACES_ENDPOINT: "http://collector:4318/v1/traces", OTEL_EXPORTER_OTLP_TRACES_PROTOCOL: "http/json", OTEL_SERVICE_NAME: "hub-eu" },
        "automation-hub-api",
      ),
    ).toEqual({ serviceName: "hub-eu", protocol: "http/json" });
  });

  it("when the SDK is disabled or the exporter is none, then tracing is off despite an endpoint", () => {
    expect(tracingSettings({ OTEL_EXPORTER_OTLP_ENDPOINT: "http://c:4318", OTEL_SDK_DISABLED: "true" }, "a")).toBeUndefined();
    expect(tracingSettings({ OTEL_EXPORTER_OTLP_ENDPOINT: "http://c:4318", OTEL_TRACES_EXPORTER: "none" }, "a")).toBeUndefined();
  });

  it("when a protocol or exporter the hub cannot use is named, then the error names the variable", () => {
    expect(() => tracingSettings({ OTEL_EXPORTER_OTLP_ENDPOINT: "http://c:4317", OTEL_EXPORTER_OTLP_PROTOCOL: "grpc" }, "a")).toThrow(
      new TracingConfigError('OTEL_EXPORTER_OTLP_PROTOCOL must be one of http/protobuf, http/json (got "grpc")'),
    );
    expect(() => tracingSettings({ OTEL_EXPORTER_OTLP_ENDPOINT: "http://c:4318", OTEL_TRACES_EXPORTER: "zipkin" }, "a")).toThrow(/OTEL_TRACES_EXPORTER/);
  });
});
