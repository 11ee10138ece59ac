/**
 * System test of a ratio sampler (CONTRACT §6.20, `OTEL_TRACES_SAMPLER=traceidratio`) on requests
 * that bring no `traceparent`: the hub decides each request's sampling before the HTTP
 * instrumentation sees it (packages/tracing/src/sdk.ts, RequestSampling), and the server span it
 * then exports must be the one the decision was made for, so the configured ratio of requests is
 * traced. Each job's handed-out `traceparent` says sampled exactly when its creating request's span
 * reached the collector, in the same trace, with `job.run` under it; an unsampled job's trace has
 * no span anywhere.
 */
import { randomBytes } from "node:crypto";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { createWorker } from "@hub/worker";
import { eventually, freePort } from "@hub/testing";
import { OtlpReceiver } from "@hub/testing/otlp-receiver";
import { SYSTEM_TEST_TIMEOUT_MS } from "@hub/testing/vitest";
import { pino } from "pino";
import { useSystemHub } from "./system-hub";

const SPAN_KIND_SERVER = 2;
/**
 * Jobs, one request each. Sampled at one half, between 70 and 130 of 200 are sampled but for a chance of 2 in
 * 100,000. A server span that drew a trace id of its own after the decision (no hand-over of the decided id) would be
 * exported only when both draws sample, a quarter of the requests: 70 or more but for a chance of 5 in 10,000.
 */
const JOBS = 200;

const receiverPort = await freePort();
let receiver: OtlpReceiver;
beforeAll(async () => {
  receiver = await OtlpReceiver.start(receiverPort);
});
afterAll(async () => {
  await receiver?.stop();
});

const system = useSystemHub({
  relays: 1,
  env: {
    OTEL_EXPORTER_OTLP_ENDPOINT: `http://127.0.0.1:${receiverPort}`,
    OTEL_TRACES_SAMPLER: "traceidratio",
    OTEL_TRACES_SAMPLER_ARG: "0.5",
    OTEL_BSP_SCHEDULE_DELAY: "100",
  },
});

describe("tracing under a ratio sampler", () => {
  it(
    "when requests without a traceparent create jobs, then half are traced, and a job is handed out sampled exactly when its request's span was exported, in that trace, with job.run under it",
    async () => {
      const hub = system();
      const automation = await hub.createAutomationWithWorker({ maxConcurrentJobs: 4 });
      const jobIds: string[] = [];
      for (let index = 0; index < JOBS; index += 1) {
        // A context unique to the request, so each server span can be told from the others only by its trace.
        const created = await hub.client.post(
          "/jobs",
          { automation_id: automation.automationId, context: { n: randomBytes(4).toString("hex") } },
          { token: hub.adminToken },
        );
        expect(created.status).toBe(201);
        jobIds.push(created.body.id as string);
      }
      const handedOut = new Map<string, string>();
      const worker = createWorker({
        url: hub.processes.apiUrl,
        apiKey: automation.workerKey,
        concurrency: 4,
        waitSeconds: 1,
        handleSignals: false,
        logger: pino({ level: "silent" }),
        handler: async (job) => {
          handedOut.set(job.id, job.traceparent ?? "");
          return {};
        },
      });
      const running = worker.run();
      try {
        await eventually(
          "every job to be handed out",
          async () => handedOut.size,
          (size) => size === JOBS,
        );
      } finally {
        await worker.stop();
        await running;
      }

      const parsed = jobIds.map((id) => {
        const traceparent = handedOut.get(id)!;
        expect(traceparent).toMatch(/^00-[0-9a-f]{32}-[0-9a-f]{16}-0[01]$/);
        const [, traceId, spanId, flags] = traceparent.split("-");
        return { id, traceId: traceId!, runSpanId: spanId!, sampled: flags === "01" };
      });
      const sampled = parsed.filter((job) => job.sampled);
      const unsampled = parsed.filter((job) => !job.sampled);
      expect(sampled.length).toBeGreaterThanOrEqual(70);
      expect(sampled.length).toBeLessThanOrEqual(130);

      for (const job of sampled) {
        const request = await receiver.waitForSpan((span) => span.traceId === job.traceId && span.name === "POST /jobs" && span.kind === SPAN_KIND_SERVER);
        expect(request.service).toBe("automation-hub-api");
        expect(request.parentSpanId ?? "").toBe("");
        const run = await receiver.waitForSpan((span) => span.traceId === job.traceId && span.spanId === job.runSpanId);
        expect(run).toMatchObject({ parentSpanId: request.spanId, attributes: expect.objectContaining({ "hub.job.id": job.id }) });
      }
      // Every sampled job's spans have arrived; any span of an unsampled job's trace would have too.
      await new Promise((resolve) => setTimeout(resolve, 500));
      const unsampledTraces = new Set(unsampled.map((job) => job.traceId));
      expect(receiver.spans.filter((span) => unsampledTraces.has(span.traceId)).map((span) => `${span.service} ${span.name}`)).toEqual([]);
      // One creating request per sampled job, none for the others: the exported server span is the decided one.
      const creatingSpans = receiver.spans.filter((span) => span.name === "POST /jobs" && span.kind === SPAN_KIND_SERVER);
      expect(new Set(creatingSpans.map((span) => span.traceId))).toEqual(new Set(sampled.map((job) => job.traceId)));
    },
    SYSTEM_TEST_TIMEOUT_MS,
  );
});
