/**
 * An OTLP/HTTP trace receiver for tests: what a collector sees of the hub's spans, decoded from
 * the bytes the hub really sends (protobuf with the OTLP definitions that ship in
 * `@opentelemetry/otlp-transformer`'s generated code, or OTLP JSON).
 *
 * ```ts
 * const receiver = await OtlpReceiver.start();                 // OTEL_EXPORTER_OTLP_ENDPOINT=receiver.url
 * const span = await receiver.waitForSpan((s) => s.name === "POST /jobs");
 * receiver.hang = true;                                        // accept connections, never answer
 * await receiver.stop();
 * ```
 */
import { createServer, type IncomingMessage, type Server, type ServerResponse } from "node:http";
import type { AddressInfo } from "node:net";
import { createRequire } from "node:module";

export interface ReceivedSpan {
  service: string;
  scope: string;
  name: string;
  traceId: string;
  spanId: string;
  /** "" for a root span. */
  parentSpanId: string;
  /** OTLP's SpanKind number: 1 internal, 2 server, 3 client, 4 producer, 5 consumer. */
  kind: number;
  attributes: Record<string, string | number | boolean>;
  links: { traceId: string; spanId: string }[];
  status: { code: number; message: string };
  startTimeUnixNano: bigint;
  endTimeUnixNano: bigint;
  /** Every string the span carries (attributes, events, links, status): what a leak test scans. */
  strings: string[];
}

interface OtlpValue {
  stringValue?: string | null;
  boolValue?: boolean | null;
  /** A number (JSON), or protobufjs's `{low, high}` when the `long` package is absent. */
  intValue?: number | string | { low: number; high: number } | null;
  doubleValue?: number | null;
  arrayValue?: { values?: OtlpValue[] };
}
interface OtlpAttribute {
  key: string;
  value?: OtlpValue;
}
interface OtlpSpan {
  traceId: Uint8Array | string;
  spanId: Uint8Array | string;
  parentSpanId?: Uint8Array | string | null;
  name: string;
  kind?: number;
  startTimeUnixNano: unknown;
  endTimeUnixNano: unknown;
  attributes?: OtlpAttribute[];
  events?: { name: string; attributes?: OtlpAttribute[] }[];
  links?: { traceId: Uint8Array | string; spanId: Uint8Array | string; attributes?: OtlpAttribute[] }[];
  status?: { code?: number; message?: string };
}
interface OtlpRequest {
  resourceSpans?: { resource?: { attributes?: OtlpAttribute[] }; scopeSpans?: { scope?: { name?: string }; spans?: OtlpSpan[] }[] }[];
}

type Decoder = { decode(bytes: Uint8Array): OtlpRequest };
let protobufDecoder: Decoder | undefined;
function decodeProtobuf(bytes: Uint8Array): OtlpRequest {
  if (!protobufDecoder) {
    const require = createRequire(import.meta.url);
    // The package's generated protobufjs module: its static types decode as well as encode.
    const root = require("@opentelemetry/otlp-transformer-decoder/build/src/generated/root.js") as {
      opentelemetry: { proto: { collector: { trace: { v1: { ExportTraceServiceRequest: Decoder } } } } };
    };
    protobufDecoder = root.opentelemetry.proto.collector.trace.v1.ExportTraceServiceRequest;
  }
  return protobufDecoder.decode(bytes);
}

const hex = (id: Uint8Array | string | null | undefined): string => (id == null ? "" : typeof id === "string" ? id : Buffer.from(id).toString("hex"));

function valueOf(value: OtlpValue | undefined): string | number | boolean {
  if (!value) return "";
  // protobufjs decodes an unset field as its prototype's null, JSON leaves it out: test both with `!= null`.
  if (value.stringValue != null) return value.stringValue;
  if (value.boolValue != null) return value.boolValue;
  if (value.intValue != null) {
    const int = value.intValue;
    return typeof int === "object" ? int.high * 2 ** 32 + (int.low >>> 0) : Number(int);
  }
  if (value.doubleValue != null) return value.doubleValue;
  if (value.arrayValue) return JSON.stringify((value.arrayValue.values ?? []).map(valueOf));
  return "";
}

function attributesOf(list: OtlpAttribute[] | undefined): Record<string, string | number | boolean> {
  return Object.fromEntries((list ?? []).map((attribute) => [attribute.key, valueOf(attribute.value)]));
}

function nanos(value: unknown): bigint {
  if (value && typeof value === "object" && "low" in value && "high" in value) {
    const { low, high } = value as { low: number; high: number };
    return (BigInt(high >>> 0) << 32n) + BigInt(low >>> 0);
  }
  return BigInt(String(value ?? "0"));
}

function spansOf(request: OtlpRequest): ReceivedSpan[] {
  const spans: ReceivedSpan[] = [];
  for (const resourceSpans of request.resourceSpans ?? []) {
    const service = String(attributesOf(resourceSpans.resource?.attributes)["service.name"] ?? "");
    for (const scopeSpans of resourceSpans.scopeSpans ?? []) {
      for (const span of scopeSpans.spans ?? []) {
        const attributes = attributesOf(span.attributes);
        const eventAttributes = (span.events ?? []).flatMap((event) => [event.name, ...Object.values(attributesOf(event.attributes)).map(String)]);
        const links = (span.links ?? []).map((link) => ({ traceId: hex(link.traceId), spanId: hex(link.spanId), attributes: attributesOf(link.attributes) }));
        const status = { code: span.status?.code ?? 0, message: span.status?.message ?? "" };
        spans.push({
          service,
          scope: scopeSpans.scope?.name ?? "",
          name: span.name,
          traceId: hex(span.traceId),
          spanId: hex(span.spanId),
          parentSpanId: hex(span.parentSpanId),
          kind: span.kind ?? 0,
          attributes,
          links: links.map(({ traceId, spanId }) => ({ traceId, spanId })),
          status,
          startTimeUnixNano: nanos(span.startTimeUnixNano),
          endTimeUnixNano: nanos(span.endTimeUnixNano),
          strings: [
            span.name,
            ...Object.values(attributes).map(String),
            ...eventAttributes,
            ...links.flatMap((link) => Object.values(link.attributes).map(String)),
            status.message,
          ],
        });
      }
    }
  }
  return spans;
}

export class OtlpReceiver {
  readonly spans: ReceivedSpan[] = [];
  /** Content types of the export requests received, in order. */
  readonly contentTypes: string[] = [];
  /** While true, export requests are read and never answered (a collector that hangs). */
  hang = false;
  /** Export requests that could not be decoded (answered 400): a test should expect none. */
  readonly decodeErrors: string[] = [];
  /** Export requests received while hanging, never answered. */
  hungRequests = 0;
  readonly #server: Server;
  readonly #held = new Set<ServerResponse>();
  readonly #waiters = new Set<() => void>();

  private constructor(server: Server) {
    this.#server = server;
  }

  /** Listens on 127.0.0.1:`port` (default a free one): a test that must name the URL before starting it picks the port first. */
  static async start(port = 0): Promise<OtlpReceiver> {
    const server = createServer();
    const receiver = new OtlpReceiver(server);
    server.on("request", (request, response) => void receiver.#receive(request, response));
    await new Promise<void>((resolve) => server.listen(port, "127.0.0.1", resolve));
    return receiver;
  }

  /** For OTEL_EXPORTER_OTLP_ENDPOINT: the exporters add `/v1/traces`. */
  get url(): string {
    return `http://127.0.0.1:${(this.#server.address() as AddressInfo).port}`;
  }

  async #receive(request: IncomingMessage, response: ServerResponse): Promise<void> {
    const chunks: Buffer[] = [];
    for await (const chunk of request) chunks.push(chunk as Buffer);
    if (this.hang) {
      this.hungRequests += 1;
      this.#held.add(response);
      return;
    }
    const contentType = request.headers["content-type"] ?? "";
    this.contentTypes.push(contentType);
    const body = Buffer.concat(chunks);
    try {
      const decoded = contentType.includes("json") ? (JSON.parse(body.toString("utf8")) as OtlpRequest) : decodeProtobuf(body);
      this.spans.push(...spansOf(decoded));
    } catch (error) {
      this.decodeErrors.push(String(error));
      response.writeHead(400).end();
      return;
    }
    // An empty ExportTraceServiceResponse in either encoding.
    if (contentType.includes("json")) response.writeHead(200, { "content-type": "application/json" }).end("{}");
    else response.writeHead(200, { "content-type": "application/x-protobuf" }).end();
    for (const wake of this.#waiters) wake();
  }

  /** The first span matching, waiting up to `timeoutMs` for it to arrive. */
  async waitForSpan(matches: (span: ReceivedSpan) => boolean, timeoutMs = 30_000): Promise<ReceivedSpan> {
    const deadline = Date.now() + timeoutMs;
    for (;;) {
      const found = this.spans.find(matches);
      if (found) return found;
      const left = deadline - Date.now();
      if (left <= 0)
        throw new Error(
          `no matching span within ${timeoutMs} ms; received: ${[...new Set(this.spans.map((s) => `${s.service}:${s.name}`))].join(", ")}; undecodable: ${this.decodeErrors.join("; ") || "none"}`,
        );
      await new Promise<void>((resolve) => {
        const wake = () => {
          this.#waiters.delete(wake);
          clearTimeout(timer);
          resolve();
        };
        const timer = setTimeout(wake, Math.min(left, 500));
        this.#waiters.add(wake);
      });
    }
  }

  async stop(): Promise<void> {
    for (const response of this.#held) response.destroy();
    this.#server.closeAllConnections();
    await new Promise<void>((resolve) => this.#server.close(() => resolve()));
  }
}
