/**
 * System test of tracing (CONTRACT §6.20) against real processes exporting to an OTLP/HTTP
 * receiver run by the test, which decodes the protobuf the hub really sends: one job followed from
 * the request that created it, through the relay's publishing and its job.run span, into the
 * worker SDK's handler and its call back to the hub; nothing the contract keeps out of spans gets
 * in; and a collector that hangs neither stalls nor fails requests, its spans counted as dropped.
 */
import { randomBytes } from "node:crypto";
import { readFileSync } from "node:fs";
import path from "node:path";
import { context, trace } from "@opentelemetry/api";
import { AsyncLocalStorageContextManager } from "@opentelemetry/context-async-hooks";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { createWorker } from "@hub/worker";
import { eventually, freePort } from "@hub/testing";
import { OtlpReceiver, type ReceivedSpan } from "@hub/testing/otlp-receiver";
import { SYSTEM_TEST_TIMEOUT_MS } from "@hub/testing/vitest";
import { pino } from "pino";
import { useSystemHub } from "./system-hub";

const SPAN_KIND = { server: 2, consumer: 5, producer: 4, client: 3 } as const;
/** Planted in everything the contract keeps out of spans: contexts, results, log lines, secrets, e-mail addresses, query strings. */
const MARKER = `mk${randomBytes(6).toString("hex")}`;

const receiverPort = await freePort();
let receiver: OtlpReceiver;
// Registered before the hub's hooks, so the receiver listens before the processes start exporting.
beforeAll(async () => {
  receiver = await OtlpReceiver.start(receiverPort);
  // The worker SDK runs handlers in the job's context; this process traces with the API only, so it needs a context manager to see it.
  context.setGlobalContextManager(new AsyncLocalStorageContextManager().enable());
});
afterAll(async () => {
  context.disable();
  await receiver?.stop();
});

const system = useSystemHub({
  relays: 1,
  env: {
    OTEL_EXPORTER_OTLP_ENDPOINT: `http://127.0.0.1:${receiverPort}`,
    OTEL_BSP_SCHEDULE_DELAY: "100",
    OTEL_EXPORTER_OTLP_TIMEOUT: "5000",
    OTEL_BSP_EXPORT_TIMEOUT: "6000",
    LOG_LEVEL: "info",
  },
});

const traceparentOf = (traceId: string, spanId: string) => `00-${traceId}-${spanId}-01`;
const hexId = (bytes: number) => randomBytes(bytes).toString("hex");

describe("tracing across the hub's processes", () => {
  it(
    "when a request with a traceparent creates a job that the worker SDK runs, then one trace holds the request, the relay's publishing, job.run and the worker's call, and no span holds a planted secret",
    async () => {
      const hub = system();
      const automation = await hub.createAutomationWithWorker({ maxConcurrentJobs: 1 });
      const { body: automationRecord } = await hub.client.get(`/automations/${automation.automationId}`, { token: hub.adminToken });
      const traceId = hexId(16);
      const callerSpanId = hexId(8);

      // The marker in an e-mail address, a password, a query string, the context, the result and a log line.
      const email = `${MARKER}@example.com`;
      const password = `pw-${MARKER}-long-enough`;
      expect((await hub.client.post("/identity/users", { email, password, role: "employee" }, { token: hub.adminToken })).status).toBe(201);
      expect((await hub.client.post("/identity/token", { email, password })).status).toBe(200);
      expect((await hub.client.get(`/jobs?limit=5&context[ref]=${MARKER}`, { token: hub.adminToken })).status).toBe(200);
      const created = await hub.client.post(
        "/jobs",
        { automation_id: automation.automationId, context: { ref: MARKER } },
        { token: hub.adminToken, headers: { traceparent: traceparentOf(traceId, callerSpanId) } },
      );
      expect(created.status).toBe(201);
      const jobId = created.body.id as string;

      let handedOut: { traceparent: string | null | undefined; activeSpanId: string | undefined } | undefined;
      const worker = createWorker({
        url: hub.processes.apiUrl,
        apiKey: automation.workerKey,
        waitSeconds: 1,
        handleSignals: false,
        logger: pino({ level: "silent" }),
        handler: async (job) => {
          handedOut = { traceparent: job.traceparent, activeSpanId: trace.getSpanContext(context.active())?.spanId };
          job.log("info", `working on ${MARKER}`);
          return { secret: MARKER };
        },
      });
      const running = worker.run();
      try {
        await eventually(
          "the job to complete",
          () => hub.readJob(jobId),
          (job) => job.status === "completed",
        );
      } finally {
        await worker.stop();
        await running;
      }

      const inTrace = (matches: (span: ReceivedSpan) => boolean) => receiver.waitForSpan((span) => span.traceId === traceId && matches(span));
      const request = await inTrace((span) => span.name === "POST /jobs" && span.kind === SPAN_KIND.server);
      expect(request).toMatchObject({ service: "automation-hub-api", parentSpanId: callerSpanId });
      expect(request.attributes["http.route"]).toBe("/jobs");
      // Its statements are PostgreSQL client spans in the same trace (under its server span).
      await inTrace((span) => span.service === "automation-hub-api" && span.kind === SPAN_KIND.client && span.attributes["db.system.name"] === "postgresql");

      // The claim handed out job.run's span id in the request's trace; the handler ran inside it.
      expect(handedOut?.traceparent).toMatch(new RegExp(`^00-${traceId}-[0-9a-f]{16}-01$`));
      const runSpanId = handedOut!.traceparent!.split("-")[2]!;
      expect(handedOut?.activeSpanId).toBe(runSpanId);
      const run = await inTrace((span) => span.name === `job.run ${automationRecord.slug}`);
      expect(run).toMatchObject({ service: "automation-hub-event-relay", spanId: runSpanId, parentSpanId: request.spanId, kind: SPAN_KIND.consumer });
      expect(run.attributes).toMatchObject({ "hub.job.id": jobId, "hub.job.attempt": 1, "hub.job.outcome": "completed" });
      expect(run.endTimeUnixNano).toBeGreaterThan(run.startTimeUnixNano);

      // The worker's calls about the job are the hub's server spans under job.run.
      const complete = await inTrace((span) => span.kind === SPAN_KIND.server && span.parentSpanId === runSpanId && span.name.startsWith("POST /jobs/"));
      expect(complete.name).toMatch(/^POST \/jobs\/:[a-z_]+\/(complete|complete-and-claim|logs)$/);
      expect(complete.name).not.toContain(jobId);
      // The relay published the job's events in its trace.
      const publish = await inTrace((span) => span.name === "hub:events publish" && span.kind === SPAN_KIND.producer);
      expect(publish.service).toBe("automation-hub-event-relay");

      // The API's log lines of the request carry its trace.
      const apiLog = readFileSync(path.join(hub.processes.logDir, "api.log"), "utf8");
      expect(apiLog).toContain(`"trace_id":"${traceId}"`);

      // Let the last batches arrive, then look at every span every process exported.
      await new Promise((resolve) => setTimeout(resolve, 500));
      const leaks = receiver.spans.filter((span) => span.strings.some((text) => text.includes(MARKER)));
      expect(leaks.map((span) => `${span.service} ${span.name}: ${span.strings.filter((text) => text.includes(MARKER)).join(" | ")}`)).toEqual([]);
      expect(receiver.spans.length).toBeGreaterThan(10);
      expect(new Set(receiver.contentTypes)).toEqual(new Set(["application/x-protobuf"]));
    },
    SYSTEM_TEST_TIMEOUT_MS,
  );

  it(
    "when a request's incoming traceparent is not sampled, then its job is handed out in that trace, unsampled, and no process exports a span of it",
    async () => {
      const hub = system();
      const automation = await hub.createAutomationWithWorker({ maxConcurrentJobs: 1 });
      const unsampledTrace = hexId(16);
      const sampledTrace = hexId(16);
      const create = async (traceparent: string) => {
        const created = await hub.client.post(
          "/jobs",
          { automation_id: automation.automationId, context: {} },
          { token: hub.adminToken, headers: { traceparent } },
        );
        expect(created.status).toBe(201);
        return created.body.id as string;
      };
      const handedOut = new Map<string, string | null | undefined>();
      const worker = createWorker({
        url: hub.processes.apiUrl,
        apiKey: automation.workerKey,
        waitSeconds: 1,
        handleSignals: false,
        logger: pino({ level: "silent" }),
        handler: async (job) => {
          handedOut.set(job.id, job.traceparent);
          return {};
        },
      });
      const running = worker.run();
      try {
        const unsampled = await create(`00-${unsampledTrace}-${hexId(8)}-00`);
        await eventually(
          "the unsampled job to complete",
          () => hub.readJob(unsampled),
          (job) => job.status === "completed",
        );
        expect(handedOut.get(unsampled)).toMatch(new RegExp(`^00-${unsampledTrace}-[0-9a-f]{16}-00$`));
        // A sampled job after it: once its spans of every process have arrived, any span of the first would have too.
        const sampled = await create(traceparentOf(sampledTrace, hexId(8)));
        await eventually(
          "the sampled job to complete",
          () => hub.readJob(sampled),
          (job) => job.status === "completed",
        );
        for (const name of ["POST /jobs", "job.offer", "hub:events publish", "job.run"])
          await receiver.waitForSpan((span) => span.traceId === sampledTrace && span.name.startsWith(name));
      } finally {
        await worker.stop();
        await running;
      }
      await new Promise((resolve) => setTimeout(resolve, 300));
      expect(receiver.spans.filter((span) => span.traceId === unsampledTrace).map((span) => `${span.service} ${span.name}`)).toEqual([]);
      // Its request's log line still names its trace, so the caller's logs and the hub's meet.
      const creating = readFileSync(path.join(hub.processes.logDir, "api.log"), "utf8")
        .split("\n")
        .filter((line) => line.includes('"url":"/jobs"') && line.includes(`"trace_id":"${unsampledTrace}"`));
      expect(creating).toHaveLength(1);
    },
    SYSTEM_TEST_TIMEOUT_MS,
  );

  it(
    "when the collector accepts connections and never answers, then requests still answer while the export hangs, and the lost spans are counted",
    async () => {
      const hub = system();
      const automation = await hub.createAutomationWithWorker({ maxConcurrentJobs: 1 });
      receiver.hang = true;
      try {
        // An export is stuck at the collector...
        await hub.client.get("/identity/me", { token: hub.adminToken });
        await eventually(
          "an export to hang at the collector",
          async () => receiver.hungRequests,
          (hung) => hung > 0,
        );
        // ...and requests still answer, each making spans the stuck exporter cannot send.
        for (let index = 0; index < 5; index += 1) {
          const created = await hub.client.post("/jobs", { automation_id: automation.automationId, context: {} }, { token: hub.adminToken });
          expect(created.status).toBe(201);
          expect((await hub.client.get(`/jobs/${created.body.id}`, { token: hub.adminToken })).status).toBe(200);
        }
        expect(receiver.hungRequests).toBeGreaterThan(0);
        const dropped = async () => {
          const metrics = await hub.client.get<string>("/metrics", { token: hub.adminToken });
          return Number(/^hub_trace_spans_dropped_total\{[^}]*\} (\d+)/m.exec(String(metrics.body))?.[1] ?? 0);
        };
        await eventually("the spans of the hung export to be counted as dropped", dropped, (count) => count > 0);
      } finally {
        receiver.hang = false;
      }
    },
    SYSTEM_TEST_TIMEOUT_MS,
  );
});
