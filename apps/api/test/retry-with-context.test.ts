/** CONTRACT §6.14: POST /jobs/{job_id}/retry with an edited context, and the order of its refusals. */
import { count, eq } from "drizzle-orm";
import { beforeAll, describe, expect, it } from "vitest";
import { schema } from "@hub/db";
import { eventsOf } from "./automation-fixtures";
import { useTestHub, type TestUser } from "./harness";
import { createAutomationWithWorker, createJob, readJob } from "./job-fixtures";

const hub = useTestHub();
const asAdmin = () => ({ token: hub.adminToken });

let employee: TestUser;
let automationId: string;

beforeAll(async () => {
  employee = await hub.createUser("employee");
  ({ automationId } = await createAutomationWithWorker(hub, { parameters: [{ name: "month", description: "Which month" }] }));
});

/** A cancelled job (cancelled is final and retryable) created by `token`'s user. */
async function cancelledJob(context: Record<string, unknown> = { month: "2026-10" }, token = hub.adminToken): Promise<string> {
  const id = await createJob(hub, automationId, token, context);
  expect((await hub.client.post(`/jobs/${id}/cancel`, undefined, { token })).status).toBe(200);
  return id;
}

async function jobCount(): Promise<number> {
  const [row] = await hub.api.ctx.database.db.select({ total: count() }).from(schema.jobs).where(eq(schema.jobs.automationId, automationId));
  return row?.total ?? 0;
}

describe("POST /jobs/{job_id}/retry with a context", () => {
  it("when a context is given, then the new job runs with it and its job.created carries retry_of and context_changed: true", async () => {
    const original = await cancelledJob({ month: "2026-10", note: "wrong month" });

    const retried = await hub.client.post(`/jobs/${original}/retry`, { context: { month: "2026-11" } }, asAdmin());

    expect(retried.status).toBe(201);
    expect(await readJob(hub, retried.body.id)).toMatchObject({ status: "queued", context: { month: "2026-11" }, retry_of: original });
    expect((await eventsOf(hub, retried.body.id))[0]).toMatchObject({
      eventType: "job.created",
      payload: { automation_id: automationId, context: { month: "2026-11" }, retry_of: original, context_changed: true },
    });
    expect(await readJob(hub, original)).toMatchObject({ status: "cancelled", context: { month: "2026-10", note: "wrong month" } });
  });

  it("when the body's context is the old one, then context_changed is true all the same; without a context (no body, or {}), it is absent", async () => {
    const original = await cancelledJob({ month: "2026-10" });

    const same = await hub.client.post(`/jobs/${original}/retry`, { context: { month: "2026-10" } }, asAdmin());
    const noBody = await hub.client.post(`/jobs/${original}/retry`, undefined, asAdmin());
    const emptyBody = await hub.client.post(`/jobs/${original}/retry`, {}, asAdmin());

    expect([same.status, noBody.status, emptyBody.status]).toEqual([201, 201, 201]);
    expect((await eventsOf(hub, same.body.id))[0]!.payload).toMatchObject({ context_changed: true, retry_of: original });
    for (const plain of [noBody.body.id, emptyBody.body.id]) {
      const [created] = await eventsOf(hub, plain);
      expect(created!.payload).toEqual({ automation_id: automationId, context: { month: "2026-10" }, retry_of: original });
      expect(await readJob(hub, plain)).toMatchObject({ context: { month: "2026-10" }, retry_of: original });
    }
  });

  it("when an employee retries its own job with a context, then 201; another user's job, then 403 before the body is looked at", async () => {
    const own = await cancelledJob({ month: "2026-10" }, employee.token);
    const admins = await cancelledJob();

    expect((await hub.client.post(`/jobs/${own}/retry`, { context: { month: "2026-12" } }, { token: employee.token })).status).toBe(201);
    const refused = await hub.client.post(`/jobs/${admins}/retry`, { context: "not an object" }, { token: employee.token });
    expect(refused.status).toBe(403);
  });

  it("when the context does not fit the parameters, then 422 under body.context, and nothing is created", async () => {
    const original = await cancelledJob();
    const before = await jobCount();

    const refused = await hub.client.post(`/jobs/${original}/retry`, { context: { month: 11, extra: "kept" } }, asAdmin());

    expect(refused.status).toBe(422);
    expect(refused.body.detail).toEqual([{ loc: ["body", "context", "month"], msg: "Input should be a valid string", type: "string_type" }]);
    expect(await jobCount()).toBe(before);
  });
});

describe("POST /jobs/{job_id}/retry: the order of refusals (404, 403, shape 422, 409, context 422)", () => {
  it("when the job is unknown and the body malformed, then 404", async () => {
    const answer = await hub.client.post("/jobs/00000000-0000-4000-8000-000000000000/retry", { context: [] }, asAdmin());
    expect(answer.status).toBe(404);
  });

  it("when the job is unknown and the JSON malformed, then 404 too; a body that is not JSON is still 415 first (CONTRACT §6.1)", async () => {
    const url = `${hub.api.url}/jobs/00000000-0000-4000-8000-000000000000/retry`;
    const send = (type: string, body: string) =>
      fetch(url, { method: "POST", headers: { "content-type": type, authorization: `Bearer ${hub.adminToken}` }, body });
    expect((await send("application/json", '{"context": ')).status).toBe(404);
    expect((await send("text/plain", "hello")).status).toBe(415);
  });

  it("when the path is not a uuid, then 422 on the path, with the body's problems", async () => {
    const answer = await hub.client.post("/jobs/nope/retry", { context: 5 }, asAdmin());
    expect(answer.status).toBe(422);
    expect(answer.body.detail.map((issue: { loc: unknown[] }) => issue.loc)).toEqual([
      ["path", "job_id"],
      ["body", "context"],
    ]);
  });

  it("when a queued job gets a body of the wrong shape, then 422 (shape before 409)", async () => {
    const queued = await createJob(hub, automationId, hub.adminToken, { month: "2026-10" });
    const answer = await hub.client.post(`/jobs/${queued}/retry`, { context: "2026-11" }, asAdmin());
    expect(answer.status).toBe(422);
    expect(answer.body.detail).toEqual([expect.objectContaining({ loc: ["body", "context"], type: "dict_type" })]);
  });

  it("when a queued job gets a context that does not fit, then 409 (the status before the context's 422)", async () => {
    const queued = await createJob(hub, automationId, hub.adminToken, { month: "2026-10" });
    const answer = await hub.client.post(`/jobs/${queued}/retry`, { context: {} }, asAdmin());
    expect(answer.status).toBe(409);
  });

  it("when the automation is deactivated, then 409 even for a context that does not fit, and nothing is created", async () => {
    const { automationId: doomed } = await createAutomationWithWorker(hub, { parameters: [{ name: "month" }] });
    const id = await createJob(hub, doomed, hub.adminToken, { month: "2026-10" });
    await hub.client.post(`/jobs/${id}/cancel`, undefined, asAdmin());
    expect((await hub.client.delete(`/automations/${doomed}`, asAdmin())).status).toBe(204);

    const misfit = await hub.client.post(`/jobs/${id}/retry`, { context: {} }, asAdmin());
    const fitting = await hub.client.post(`/jobs/${id}/retry`, { context: { month: "2026-11" } }, asAdmin());

    expect([misfit.status, fitting.status]).toEqual([409, 409]);
  });
});
