/**
 * System test of the dispatcher's part in jobs' traces (CONTRACT §6.20), against real processes
 * exporting OTLP/HTTP with JSON (`OTEL_EXPORTER_OTLP_PROTOCOL=http/json`; tracing.test.ts covers
 * the protobuf default) to a receiver run by the test: the hand-off to the ready set, a lapsed
 * lease and a timeout are spans of
 * the job's trace, one sweep that ends several jobs is one span linked to each, and a schedule's
 * fire starts a trace of its own that the job it makes carries. No exported span holds the marker
 * planted in contexts, results and errors. Leases last 1 s here.
 */
import { randomBytes } from "node:crypto";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { eventually, freePort } from "@hub/testing";
import { OtlpReceiver, type ReceivedSpan } from "@hub/testing/otlp-receiver";
import { SYSTEM_TEST_TIMEOUT_MS } from "@hub/testing/vitest";
import { useSystemHub, type SystemAutomation, type SystemHub } from "./system-hub";

const SPAN_KIND = { server: 2, producer: 4, consumer: 5 } as const;
/** Planted in every context, result and error of this file's jobs: no span may carry it. */
const MARKER = `mk${randomBytes(6).toString("hex")}`;

const receiverPort = await freePort();
let receiver: OtlpReceiver;
beforeAll(async () => {
  receiver = await OtlpReceiver.start(receiverPort);
});
afterAll(async () => receiver?.stop());

const system = useSystemHub({
  relays: 1,
  env: {
    OTEL_EXPORTER_OTLP_ENDPOINT: `http://127.0.0.1:${receiverPort}`,
    OTEL_EXPORTER_OTLP_PROTOCOL: "http/json",
    OTEL_BSP_SCHEDULE_DELAY: "100",
    HUB_JOB_LEASE_SECONDS: "1",
    HUB_SCHEDULES_ALLOW_SECONDS: "true",
  },
});

const hexId = (bytes: number) => randomBytes(bytes).toString("hex");

/** Creates a job under a caller's trace; answers the job's id, the trace and the `POST /jobs` server span. */
async function createTracedJob(hub: SystemHub, automation: SystemAutomation): Promise<{ jobId: string; traceId: string; request: ReceivedSpan }> {
  const traceId = hexId(16);
  const created = await hub.client.post(
    "/jobs",
    { automation_id: automation.automationId, context: { ref: MARKER } },
    { token: hub.adminToken, headers: { traceparent: `00-${traceId}-${hexId(8)}-01` } },
  );
  expect(created.status).toBe(201);
  const request = await receiver.waitForSpan((span) => span.traceId === traceId && span.name === "POST /jobs" && span.kind === SPAN_KIND.server);
  return { jobId: created.body.id as string, traceId, request };
}

/** No back-off worth waiting for: a swept job stays queued, so each test sees one sweep of it. */
const NO_RETRY_SOON = { retry_backoff_seconds: 3600 };

describe("the dispatcher's spans in jobs' traces", () => {
  it(
    "when a job is handed out and its lease lapses, then the dispatcher's job.offer and job.lease_expired spans are children of the request that created it",
    async () => {
      const hub = system();
      const automation = await hub.createAutomationWithWorker({ settings: NO_RETRY_SOON });
      const { jobId, traceId, request } = await createTracedJob(hub, automation);
      const claimed = await automation.worker.claim(10);
      expect(claimed?.id).toBe(jobId);
      // The dispatcher's hand-off of the committed job to its ready set.
      const offer = await receiver.waitForSpan((span) => span.traceId === traceId && span.name === "job.offer");
      expect(offer).toMatchObject({ service: "automation-hub-dispatcher", parentSpanId: request.spanId, kind: SPAN_KIND.producer });
      expect(offer.attributes).toMatchObject({ "hub.job.id": jobId, "hub.jobs.offered": 1 });

      const swept = await receiver.waitForSpan((span) => span.traceId === traceId && span.name === "job.lease_expired");
      expect(swept).toMatchObject({ service: "automation-hub-dispatcher", parentSpanId: request.spanId, links: [] });
      expect(swept.attributes).toMatchObject({ "hub.job.id": jobId, "hub.job.reason": "lease_expired", "hub.jobs.requeued": 1, "hub.jobs.failed": 0 });
      expect(swept.endTimeUnixNano).toBeGreaterThanOrEqual(swept.startTimeUnixNano);
      // The attempt's job.run span ends with the same cause.
      const run = await receiver.waitForSpan((span) => span.traceId === traceId && span.name.startsWith("job.run "));
      expect(run.attributes).toMatchObject({ "hub.job.outcome": "requeued", "hub.job.reason": "lease_expired" });
    },
    SYSTEM_TEST_TIMEOUT_MS,
  );

  it(
    "when a job runs past its automation's timeout while heartbeating, then the dispatcher's job.timed_out span is in the job's trace",
    async () => {
      const hub = system();
      const automation = await hub.createAutomationWithWorker({ settings: { ...NO_RETRY_SOON, timeout_seconds: 2 } });
      const { jobId, traceId, request } = await createTracedJob(hub, automation);
      expect((await automation.worker.claim(10))?.id).toBe(jobId);
      // Heartbeats keep the lease until the timeout ends the attempt (then they are refused).
      await eventually(
        "the job to time out",
        async () => {
          await automation.worker.heartbeat(jobId).catch(() => undefined);
          return hub.readJob(jobId);
        },
        (job) => job.status !== "running",
      );
      const swept = await receiver.waitForSpan((span) => span.traceId === traceId && span.name === "job.timed_out");
      expect(swept).toMatchObject({ service: "automation-hub-dispatcher", parentSpanId: request.spanId });
      expect(swept.attributes).toMatchObject({ "hub.job.id": jobId, "hub.job.reason": "timeout" });
    },
    SYSTEM_TEST_TIMEOUT_MS,
  );

  it(
    "when a job's approval request expires, then the dispatcher's job.approval_expired span is a child of the request that created it",
    async () => {
      const hub = system();
      const automation = await hub.createAutomationWithWorker({ settings: { requires_approval: true, approval_timeout_seconds: 60 } });
      const { jobId, traceId, request } = await createTracedJob(hub, automation);
      // The shortest timeout is a minute: the request's expiry is brought to now instead.
      await hub.database.pool.query("update jobs set approval_expires_at = now() where id = $1", [jobId]);
      const swept = await receiver.waitForSpan((span) => span.traceId === traceId && span.name === "job.approval_expired");
      expect(swept).toMatchObject({ service: "automation-hub-dispatcher", parentSpanId: request.spanId, links: [] });
      expect(swept.attributes).toMatchObject({
        "hub.job.id": jobId,
        "hub.automation.id": automation.automationId,
        "hub.job.reason": "approval_expired",
        "hub.jobs.cancelled": 1,
      });
      expect(swept.endTimeUnixNano).toBeGreaterThanOrEqual(swept.startTimeUnixNano);
      expect(await hub.readJob(jobId)).toMatchObject({ status: "cancelled", approval: { status: "expired" } });
    },
    SYSTEM_TEST_TIMEOUT_MS,
  );

  it(
    "when one sweep ends jobs of two traces, then its span is a root linked to each job's trace",
    async () => {
      const hub = system();
      const automation = await hub.createAutomationWithWorker({ maxConcurrentJobs: 2, settings: NO_RETRY_SOON });
      const first = await createTracedJob(hub, automation);
      const second = await createTracedJob(hub, automation);
      // One claim statement: both leases lapse at the same instant, so one sweep ends both.
      const claimed = await automation.worker.claimBatch(2, 10);
      expect(claimed.map((job) => job.id).sort()).toEqual([first.jobId, second.jobId].sort());

      const linksTo = (span: ReceivedSpan, job: typeof first) => span.links.some((link) => link.traceId === job.traceId && link.spanId === job.request.spanId);
      const swept = await receiver.waitForSpan((span) => span.name === "job.lease_expired" && linksTo(span, first) && linksTo(span, second));
      expect(swept).toMatchObject({ service: "automation-hub-dispatcher", parentSpanId: "" });
      expect([first.traceId, second.traceId]).not.toContain(swept.traceId);
      expect(swept.attributes).toMatchObject({ "hub.jobs.count": 2, "hub.jobs.requeued": 2 });
      expect(swept.attributes["hub.job.id"]).toBeUndefined();
    },
    SYSTEM_TEST_TIMEOUT_MS,
  );

  it(
    "when a schedule fires, then the fire is a trace of its own and the job it made runs in that trace",
    async () => {
      const hub = system();
      const automation = await hub.createAutomationWithWorker({ settings: NO_RETRY_SOON });
      const schedule = { cron: "* * * * * *", overlap: "skip", context: { ref: MARKER } };
      const created = await hub.client.post<{ id: string }>(`/automations/${automation.automationId}/schedules`, schedule, { token: hub.adminToken });
      expect(created.status).toBe(201);
      const job = await automation.worker.claim(10);
      expect((await hub.client.put(`/schedules/${created.body.id}`, { ...schedule, enabled: false }, { token: hub.adminToken })).status).toBe(200);
      expect(job?.traceparent).toMatch(/^00-[0-9a-f]{32}-[0-9a-f]{16}-01$/);
      const [, traceId, runSpanId] = job!.traceparent!.split("-");

      const fire = await receiver.waitForSpan((span) => span.traceId === traceId && span.name === "schedule.fire");
      expect(fire).toMatchObject({ service: "automation-hub-dispatcher", parentSpanId: "", kind: SPAN_KIND.producer, links: [] });
      expect(fire.attributes).toMatchObject({
        "hub.schedule.id": created.body.id,
        "hub.automation.id": automation.automationId,
        "hub.schedule.outcome": "created",
        "hub.job.id": job!.id,
      });

      await automation.worker.fail(job!.id, { error: `failed on ${MARKER}`, retryable: false });
      const run = await receiver.waitForSpan((span) => span.traceId === traceId && span.name.startsWith("job.run "));
      expect(run).toMatchObject({ spanId: runSpanId, parentSpanId: fire.spanId, kind: SPAN_KIND.consumer });
      expect(run.attributes).toMatchObject({ "hub.job.id": job!.id, "hub.job.outcome": "failed" });
    },
    SYSTEM_TEST_TIMEOUT_MS,
  );

  it("when every span of this file has arrived, then all came as OTLP JSON and none holds the planted marker", async () => {
    await new Promise((resolve) => setTimeout(resolve, 500));
    expect(receiver.decodeErrors).toEqual([]);
    expect(new Set(receiver.contentTypes)).toEqual(new Set(["application/json"]));
    const names = new Set(receiver.spans.map((span) => span.name));
    for (const name of ["job.offer", "job.lease_expired", "job.timed_out", "job.approval_expired", "schedule.fire", "hub:events publish"])
      expect(names).toContain(name);
    const leaks = receiver.spans.filter((span) => span.strings.some((text) => text.includes(MARKER)));
    expect(leaks.map((span) => `${span.service} ${span.name}: ${span.strings.filter((text) => text.includes(MARKER)).join(" | ")}`)).toEqual([]);
  });
});
