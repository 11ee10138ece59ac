/**
 * Limits per key, rate limits and fair sharing (CONTRACT §6.13), through the API with a dispatcher
 * running in-process: the settings on the automation record and its events, the 422s of POST and
 * PUT, what claims start, and why the jobs left behind wait.
 */
import { describe, expect, it } from "vitest";
import { createSector, eventsOf, uniqueSlug } from "./automation-fixtures";
import { createAutomationWithWorker, createJob, readJob, useHubWithDispatcher, waitFor, type AutomationWithWorker } from "./job-fixtures";

const hub = useHubWithDispatcher();
const asAdmin = () => ({ token: hub.adminToken });
const customerParameter = [{ name: "customer", description: "Whose export" }];

async function claimBatch(subject: AutomationWithWorker, maxJobs: number, waitSeconds = 0): Promise<Array<Record<string, any>>> {
  const answer = await hub.client.post<{ jobs: Array<Record<string, any>> }>(
    "/jobs/claim-batch",
    { max_jobs: maxJobs, wait_seconds: waitSeconds },
    { workerKey: subject.workerKey },
  );
  if (answer.status === 204) return [];
  if (answer.status !== 200) throw new Error(`claim-batch answered ${answer.status}`);
  return answer.body.jobs;
}

async function jobsFor(subject: AutomationWithWorker, customers: string[]): Promise<string[]> {
  const ids: string[] = [];
  for (const customer of customers) ids.push(await createJob(hub, subject.automationId, hub.adminToken, { customer }));
  await hub.dispatcher.reconcileNow();
  return ids;
}

/** A gauge's value in a /metrics text, for the series whose labels start with these (the registry adds `app`). */
function gauge(text: string, name: string, labels: string): number | undefined {
  const line = text.split("\n").find((candidate) => candidate.startsWith(`${name}{${labels},`));
  return line === undefined ? undefined : Number(line.slice(line.lastIndexOf(" ") + 1));
}

const complete = (subject: AutomationWithWorker, id: string) => hub.client.post(`/jobs/${id}/complete`, { result: {} }, { workerKey: subject.workerKey });

describe("the limit settings", () => {
  it("when an automation is created with a key, a per-key limit and a rate limit, then the record shows them and automation.created carries them", async () => {
    const sector = await createSector(hub);
    const created = await hub.client.post(
      "/automations",
      {
        name: "Exports",
        slug: uniqueSlug("exports"),
        sector_id: sector.id,
        parameters: customerParameter,
        max_concurrent_jobs: 20,
        concurrency_key: "customer",
        max_concurrent_per_key: 2,
        rate_limit: { count: 100, period_seconds: 60 },
      },
      asAdmin(),
    );

    expect(created.status).toBe(201);
    const limits = { concurrency_key: "customer", max_concurrent_per_key: 2, rate_limit: { count: 100, period_seconds: 60, per_key: false } };
    expect((await hub.client.get(`/automations/${created.body.id}`, asAdmin())).body).toMatchObject(limits);
    const [event] = await eventsOf(hub, created.body.id);
    expect(event!.payload).toMatchObject(limits);
  });

  it("when an automation is created without limits, then they are null and automation.created does not name them", async () => {
    const sector = await createSector(hub);
    const created = await hub.client.post("/automations", { name: "Plain", slug: uniqueSlug("plain"), sector_id: sector.id }, asAdmin());

    expect((await hub.client.get(`/automations/${created.body.id}`, asAdmin())).body).toMatchObject({
      concurrency_key: null,
      max_concurrent_per_key: null,
      rate_limit: null,
    });
    const [event] = await eventsOf(hub, created.body.id);
    expect(event!.payload).not.toHaveProperty("concurrency_key");
    expect(event!.payload).not.toHaveProperty("rate_limit");
  });

  it("when a POST breaks every limit rule at once, then one 422 names each problem and nothing is created", async () => {
    const sector = await createSector(hub);
    const unknownKey = await hub.client.post(
      "/automations",
      { name: "Bad", slug: uniqueSlug("bad"), sector_id: sector.id, parameters: customerParameter, concurrency_key: "tenant" },
      asAdmin(),
    );
    const withoutKey = await hub.client.post(
      "/automations",
      { name: "Bad", slug: uniqueSlug("bad"), sector_id: sector.id, max_concurrent_per_key: 2, rate_limit: { count: 1, period_seconds: 1, per_key: true } },
      asAdmin(),
    );

    expect(unknownKey.status).toBe(422);
    expect(unknownKey.body.detail).toEqual([
      expect.objectContaining({ loc: ["body", "concurrency_key"], type: "value_error" }),
      expect.objectContaining({ loc: ["body", "max_concurrent_per_key"], type: "missing", msg: "Field required" }),
    ]);
    expect(withoutKey.status).toBe(422);
    expect(withoutKey.body.detail).toEqual([
      expect.objectContaining({ loc: ["body", "max_concurrent_per_key"], type: "value_error" }),
      expect.objectContaining({ loc: ["body", "rate_limit", "per_key"], type: "value_error" }),
    ]);
    expect((await hub.client.get(`/automations?sector_id=${sector.id}`, asAdmin())).body).toEqual([]);
  });

  it.each([
    ["max_concurrent_per_key", 0, ["body", "max_concurrent_per_key"]],
    ["max_concurrent_per_key", 1001, ["body", "max_concurrent_per_key"]],
    ["rate_limit", { count: 0, period_seconds: 1 }, ["body", "rate_limit", "count"]],
    ["rate_limit", { count: 100_001, period_seconds: 1 }, ["body", "rate_limit", "count"]],
    ["rate_limit", { count: 1, period_seconds: 86_401 }, ["body", "rate_limit", "period_seconds"]],
  ])("when %s is %j, then 422 at its bounds", async (field, value, loc) => {
    const sector = await createSector(hub);
    const created = await hub.client.post(
      "/automations",
      { name: "Bad", slug: uniqueSlug("bad"), sector_id: sector.id, parameters: customerParameter, concurrency_key: "customer", [field]: value },
      asAdmin(),
    );

    expect(created.status).toBe(422);
    expect(created.body.detail.map((issue: { loc: unknown[] }) => issue.loc)).toContainEqual(loc);
  });

  it("when a PUT omits the limits, then they stay; when it drops the key's parameter, then 422 at parameters; when it clears the key, then the per-key limit goes with it", async () => {
    const subject = await createAutomationWithWorker(hub, {
      parameters: customerParameter,
      concurrency_key: "customer",
      max_concurrent_per_key: 3,
      rate_limit: { count: 5, period_seconds: 10 },
    });
    const current = (await hub.client.get(`/automations/${subject.automationId}`, asAdmin())).body;
    const replacement = {
      name: current.name,
      description: current.description,
      sector_id: current.sector.id,
      max_concurrent_jobs: current.max_concurrent_jobs,
      parameters: customerParameter,
    };

    const kept = await hub.client.put(`/automations/${subject.automationId}`, replacement, asAdmin());
    const dropped = await hub.client.put(`/automations/${subject.automationId}`, { ...replacement, parameters: [] }, asAdmin());
    const cleared = await hub.client.put(`/automations/${subject.automationId}`, { ...replacement, concurrency_key: null }, asAdmin());

    expect(kept.body).toMatchObject({ concurrency_key: "customer", max_concurrent_per_key: 3, rate_limit: { count: 5, period_seconds: 10, per_key: false } });
    expect(dropped.status).toBe(422);
    expect(dropped.body.detail).toEqual([expect.objectContaining({ loc: ["body", "parameters"], type: "value_error" })]);
    expect(cleared.status).toBe(200);
    expect(cleared.body).toMatchObject({ concurrency_key: null, max_concurrent_per_key: null, rate_limit: { count: 5 } });
    const updated = (await eventsOf(hub, subject.automationId)).filter((event) => event.eventType === "automation.updated");
    expect(updated.map((event) => event.payload)).toEqual([{ concurrency_key: null, max_concurrent_per_key: null }]);
  });
});

describe("claims under the limits", () => {
  it("when one customer has a backlog, then each other customer's job starts within the next few starts and no customer runs more than its limit", async () => {
    const subject = await createAutomationWithWorker(hub, {
      parameters: customerParameter,
      max_concurrent_jobs: 10,
      concurrency_key: "customer",
      max_concurrent_per_key: 2,
    });
    await jobsFor(subject, ["big", "big", "big", "big", "big", "big", "small-1", "small-2"]);

    const first = await claimBatch(subject, 10);

    // big's first two start, then the limit holds its four others back; both small customers start.
    expect(first.map((job) => job.context.customer).sort()).toEqual(["big", "big", "small-1", "small-2"]);
    const waiting = await hub.client.get(`/jobs?automation_id=${subject.automationId}&status=queued`, asAdmin());
    const queuedIds = waiting.body.map((job: { id: string }) => job.id);
    const reasons = await Promise.all(queuedIds.map((id: string) => readJob(hub, id)));
    expect(reasons.map((job) => job.waiting_reason)).toEqual([
      "key_concurrency_limit",
      "key_concurrency_limit",
      "key_concurrency_limit",
      "key_concurrency_limit",
    ]);
    expect(reasons.map((job) => job.queue_position).sort()).toEqual([1, 2, 3, 4]);

    await complete(subject, first.find((job) => job.context.customer === "big")!.id);
    const next = await claimBatch(subject, 10);
    expect(next.map((job) => job.context.customer)).toEqual(["big"]);
  });

  it("when key values wait at one priority, then starts go round-robin across them, never-started values first in claim order", async () => {
    const subject = await createAutomationWithWorker(hub, {
      parameters: customerParameter,
      max_concurrent_jobs: 1,
      concurrency_key: "customer",
      max_concurrent_per_key: 1,
    });
    await jobsFor(subject, ["a", "a", "a", "b", "b", "c"]);

    const order: string[] = [];
    for (let start = 0; start < 6; start += 1) {
      const [job] = await claimBatch(subject, 1);
      order.push(job!.context.customer);
      await complete(subject, job!.id);
    }

    expect(order).toEqual(["a", "b", "c", "a", "b", "a"]);
  });

  it("when a PUT moves the key to another parameter, then queued and running jobs count under the new one at once", async () => {
    const parameters = [...customerParameter, { name: "region", description: "Where it runs" }];
    const subject = await createAutomationWithWorker(hub, { parameters, max_concurrent_jobs: 10, concurrency_key: "customer", max_concurrent_per_key: 1 });
    for (const [customer, region] of [
      ["a", "eu"],
      ["b", "eu"],
      ["c", "us"],
      ["d", "eu"],
    ] as const) {
      await createJob(hub, subject.automationId, hub.adminToken, { customer, region });
    }
    await hub.dispatcher.reconcileNow();
    const [first] = await claimBatch(subject, 1);
    const current = (await hub.client.get(`/automations/${subject.automationId}`, asAdmin())).body;

    const moved = await hub.client.put(
      `/automations/${subject.automationId}`,
      {
        name: current.name,
        description: current.description,
        sector_id: current.sector.id,
        max_concurrent_jobs: 10,
        parameters,
        concurrency_key: "region",
        max_concurrent_per_key: 2,
      },
      asAdmin(),
    );
    const next = await claimBatch(subject, 10);

    expect(moved.status).toBe(200);
    expect(first!.context).toEqual({ customer: "a", region: "eu" });
    // eu already runs a's job: one more eu job may start, and us's.
    expect(next.map((job) => job.context.region).sort()).toEqual(["eu", "us"]);
  });

  it("when the rate limit's window is full, then the next job waits as rate_limited with the moment it opens, and a waiting worker gets it within a second of that", async () => {
    const subject = await createAutomationWithWorker(hub, { max_concurrent_jobs: 10, rate_limit: { count: 2, period_seconds: 2 } });
    for (let index = 0; index < 3; index += 1) await createJob(hub, subject.automationId);
    await hub.dispatcher.reconcileNow();

    const firstTwo = await claimBatch(subject, 10);
    expect(firstTwo).toHaveLength(2);
    const [third] = (await hub.client.get(`/jobs?automation_id=${subject.automationId}&status=queued`, asAdmin())).body;
    const held = await readJob(hub, third.id);
    // Times cross the wire at millisecond precision; PostgreSQL keeps microseconds.
    const opensAt = new Date(firstTwo[0]!.started_at).getTime() + 2000 - 1;
    expect(held).toMatchObject({ waiting_reason: "rate_limited" });
    expect(new Date(held.available_at).getTime()).toBeGreaterThanOrEqual(opensAt);
    expect(third.available_at).not.toBe(held.available_at);
    const stats = await hub.client.get(`/automations/${subject.automationId}/stats`, asAdmin());
    expect(stats.body).toMatchObject({ rate_limit_remaining: 0, by_key: [] });

    const [late] = await claimBatch(subject, 10, 5);

    expect(late!.id).toBe(third.id);
    expect(new Date(late!.started_at).getTime()).toBeGreaterThanOrEqual(opensAt);
    expect(new Date(late!.started_at).getTime()).toBeLessThan(new Date(held.available_at).getTime() + 1000);
  });

  it("when a customer's own window is full under a per-key rate limit, then only that customer's next job waits as rate_limited, until its window opens", async () => {
    const subject = await createAutomationWithWorker(hub, {
      parameters: customerParameter,
      max_concurrent_jobs: 10,
      concurrency_key: "customer",
      max_concurrent_per_key: 5,
      rate_limit: { count: 1, period_seconds: 3600, per_key: true },
    });
    const [, secondAcme] = await jobsFor(subject, ["acme", "acme", "globex"]);

    const started = await claimBatch(subject, 10);

    expect(started.map((job) => job.context.customer).sort()).toEqual(["acme", "globex"]);
    const held = await readJob(hub, secondAcme!);
    const acmeStart = new Date(started.find((job) => job.context.customer === "acme")!.started_at).getTime();
    expect(held).toMatchObject({ waiting_reason: "rate_limited", queue_position: 1 });
    expect(Math.abs(new Date(held.available_at).getTime() - (acmeStart + 3_600_000))).toBeLessThanOrEqual(1);
  });

  it("when an automation has a key, then stats.by_key shows each value's queued and running jobs, most queued first", async () => {
    const subject = await createAutomationWithWorker(hub, {
      parameters: customerParameter,
      max_concurrent_jobs: 10,
      concurrency_key: "customer",
      max_concurrent_per_key: 1,
      rate_limit: { count: 10, period_seconds: 60, per_key: true },
    });
    await jobsFor(subject, ["acme", "acme", "acme", "globex", "globex"]);
    await claimBatch(subject, 10);

    const stats = await hub.client.get(`/automations/${subject.automationId}/stats`, asAdmin());

    expect(stats.body.rate_limit_remaining).toBeNull();
    expect(stats.body.by_key).toEqual([
      { key: "acme", queued: 2, running: 1, rate_limit_remaining: 9 },
      { key: "globex", queued: 1, running: 1, rate_limit_remaining: 9 },
    ]);
  });

  it("when key values wait, then /metrics shows the key-limited jobs and each value's queue, labelled by slug and value", async () => {
    const subject = await createAutomationWithWorker(hub, {
      parameters: customerParameter,
      max_concurrent_jobs: 10,
      concurrency_key: "customer",
      max_concurrent_per_key: 1,
      rate_limit: { count: 1, period_seconds: 3600 },
    });
    const { slug } = (await hub.client.get(`/automations/${subject.automationId}`, asAdmin())).body;
    await jobsFor(subject, ["acme", "acme", "acme", "globex"]);
    await claimBatch(subject, 10);

    // One start used the hour's only start: every due job is rate limited; acme's two also wait for their key.
    let text = "";
    await waitFor(async () => {
      text = (await hub.client.get<string>("/metrics")).body;
      return gauge(text, "hub_jobs_rate_limited", `automation="${slug}"`) === 3;
    });
    expect(gauge(text, "hub_jobs_key_limited", `automation="${slug}"`)).toBe(2);
    expect(gauge(text, "hub_key_jobs_queued", `automation="${slug}",key="acme"`)).toBe(2);
    expect(gauge(text, "hub_key_jobs_queued", `automation="${slug}",key="globex"`)).toBe(1);
  });
});
