import { eq } from "drizzle-orm";
import { beforeAll, describe, expect, it } from "vitest";
import { EVERYWHERE, jobs, schema } from "@hub/db";
import { hashApiKey } from "../src/identity/secret-keys";
import { adminId, countAllEvents, createAutomation, createSector, eventsOf, insertQueuedJob } from "./automation-fixtures";
import { useTestHub, type TestUser } from "./harness";
import { expectNoSecrets } from "./secrets";

const hub = useTestHub();
let employee: TestUser;
let admin: string;
let sectorId: string;
/** Every api key handed out in this file, checked against every read and event at the end. */
const issuedKeys: string[] = [];

beforeAll(async () => {
  employee = await hub.createUser("employee");
  admin = await adminId(hub);
  sectorId = (await createSector(hub)).id;
});

const asAdmin = () => ({ token: hub.adminToken });

interface Credentials {
  id: string;
  api_key: string;
}

async function register(automationId: string, cloudInstanceId = "i-0abc123"): Promise<Credentials> {
  const result = await hub.client.post<Credentials>(`/automations/${automationId}/worker`, { cloud_instance_id: cloudInstanceId }, asAdmin());
  if (result.status !== 201) throw new Error(`worker not registered: ${result.status} ${JSON.stringify(result.body)}`);
  issuedKeys.push(result.body.api_key);
  return result.body;
}

/** Whether the hub accepts `apiKey` on a worker endpoint: POST /jobs/claim (nothing is queued, so 204). */
async function workerKeyAccepted(apiKey: string): Promise<boolean> {
  const result = await hub.client.post("/jobs/claim", { wait_seconds: 0 }, { workerKey: apiKey });
  if (result.status === 401) return false;
  if (result.status === 200 || result.status === 204) return true;
  throw new Error(`unexpected claim answer ${result.status} ${JSON.stringify(result.body)}`);
}

describe("POST /automations/{automation_id}/worker", () => {
  it("when a worker is registered, then 201 with its id and a fresh key, and the automation shows it stopped", async () => {
    const automationId = await createAutomation(hub, { sector_id: sectorId });

    const result = await hub.client.post<Credentials>(`/automations/${automationId}/worker`, { cloud_instance_id: "i-0abc123" }, asAdmin());

    expect(result.status).toBe(201);
    issuedKeys.push(result.body.api_key);
    expect(Object.keys(result.body).sort()).toEqual(["api_key", "id"]);
    expect(result.body.id).toMatch(/^[0-9a-f-]{36}$/);
    expect(result.body.api_key).toMatch(/^whk_[A-Za-z0-9_-]{43}$/);
    const record = await hub.client.get(`/automations/${automationId}`, { token: employee.token });
    expect(record.body.worker).toEqual({
      cloud_instance_id: "i-0abc123",
      status: "stopped",
      created_at: expect.stringMatching(/^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}\.\d{3}Z$/),
      last_seen_at: null,
    });
  });

  it("when a worker is registered, then only the key's hash is stored and worker.registered names the worker", async () => {
    const automationId = await createAutomation(hub, { sector_id: sectorId });

    const credentials = await register(automationId, "vm-42");

    const [row] = await hub.api.ctx.database.db.select().from(schema.workers).where(eq(schema.workers.id, credentials.id));
    expect(row?.apiKeyHash).toBe(hashApiKey(credentials.api_key));
    expect(JSON.stringify(row)).not.toContain(credentials.api_key);
    expect((await eventsOf(hub, automationId)).map((event) => [event.eventType, event.actorId, event.payload])).toEqual([
      ["automation.created", admin, expect.any(Object)],
      ["worker.registered", admin, { worker_id: credentials.id, cloud_instance_id: "vm-42" }],
    ]);
  });

  it("when the new key is presented, then the hub accepts it and the worker shows running", async () => {
    const automationId = await createAutomation(hub, { sector_id: sectorId });
    const credentials = await register(automationId);

    expect(await workerKeyAccepted(credentials.api_key)).toBe(true);

    expect((await hub.client.get(`/automations/${automationId}`, asAdmin())).body.worker.status).toBe("running");
  });

  it("when a stopped worker makes many calls at once, then every call is answered after it shows running, and it went running once", async () => {
    const automationId = await createAutomation(hub, { sector_id: sectorId });
    const credentials = await register(automationId);

    const answers = await Promise.all(Array.from({ length: 12 }, () => workerKeyAccepted(credentials.api_key)));
    const [row] = await hub.api.ctx.database.db.select({ status: schema.workers.status }).from(schema.workers).where(eq(schema.workers.id, credentials.id));

    expect(answers).toEqual(Array.from({ length: 12 }, () => true));
    expect(row?.status).toBe("running");
    const flips = (await eventsOf(hub, automationId)).filter((event) => event.eventType === "worker.status_changed");
    expect(flips.map((event) => event.payload)).toEqual([{ worker_id: credentials.id, from: "stopped", to: "running" }]);
  });

  it("when two registrations are made, then each key differs", async () => {
    const first = await register(await createAutomation(hub, { sector_id: sectorId }));
    const second = await register(await createAutomation(hub, { sector_id: sectorId }));

    expect(first.api_key).not.toBe(second.api_key);
  });

  it("when a worker is already registered, then a second registration is 409 and changes nothing", async () => {
    const automationId = await createAutomation(hub, { sector_id: sectorId });
    const first = await register(automationId, "vm-first");
    const before = await countAllEvents(hub);

    const second = await hub.client.post(`/automations/${automationId}/worker`, { cloud_instance_id: "vm-second" }, asAdmin());

    expect(second.status).toBe(409);
    expect(second.body).toEqual({ detail: expect.any(String) });
    expect(await countAllEvents(hub)).toBe(before);
    expect((await hub.client.get(`/automations/${automationId}`, asAdmin())).body.worker.cloud_instance_id).toBe("vm-first");
    expect(await workerKeyAccepted(first.api_key)).toBe(true);
  });

  it("when registrations race, then exactly one succeeds and the others are 409", async () => {
    const automationId = await createAutomation(hub, { sector_id: sectorId });

    const answers = await Promise.all(
      ["vm-a", "vm-b", "vm-c", "vm-d"].map((cloudInstanceId) =>
        hub.client.post<Credentials>(`/automations/${automationId}/worker`, { cloud_instance_id: cloudInstanceId }, asAdmin()),
      ),
    );

    for (const answer of answers) if (answer.status === 201) issuedKeys.push(answer.body.api_key);
    expect(answers.map((answer) => answer.status).sort()).toEqual([201, 409, 409, 409]);
    const registered = await hub.api.ctx.database.db.select().from(schema.workers).where(eq(schema.workers.automationId, automationId));
    expect(registered).toHaveLength(1);
  });

  it("when the automation is inactive, then 409 and no worker is registered", async () => {
    const automationId = await createAutomation(hub, { sector_id: sectorId });
    await hub.client.delete(`/automations/${automationId}`, asAdmin());
    const before = await countAllEvents(hub);

    const result = await hub.client.post(`/automations/${automationId}/worker`, { cloud_instance_id: "vm-late" }, asAdmin());

    expect(result.status).toBe(409);
    expect(await countAllEvents(hub)).toBe(before);
    expect((await hub.client.get(`/automations/${automationId}`, asAdmin())).body.worker).toBeNull();
  });

  it("when the automation does not exist, then 404", async () => {
    const result = await hub.client.post("/automations/00000000-0000-4000-8000-000000000000/worker", { cloud_instance_id: "vm" }, asAdmin());

    expect(result.status).toBe(404);
    expect(result.body).toEqual({ detail: "Automation not found" });
  });

  it.each([
    ["a missing cloud_instance_id", {}, "missing"],
    ["an empty cloud_instance_id", { cloud_instance_id: "" }, "string_too_short"],
    ["a cloud_instance_id of 65 characters", { cloud_instance_id: "i".repeat(65) }, "string_too_long"],
    ["a cloud_instance_id that is not a string", { cloud_instance_id: 7 }, "string_type"],
  ])("when the body has %s, then 422 on cloud_instance_id and no worker is registered", async (_case, body, type) => {
    const automationId = await createAutomation(hub, { sector_id: sectorId });

    const result = await hub.client.post(`/automations/${automationId}/worker`, body, asAdmin());

    expect(result.status).toBe(422);
    expect(result.body.detail).toEqual([{ loc: ["body", "cloud_instance_id"], msg: expect.any(String), type }]);
    expect((await hub.client.get(`/automations/${automationId}`, asAdmin())).body.worker).toBeNull();
  });

  it("when a cloud_instance_id of 64 characters is sent, then it is accepted", async () => {
    const automationId = await createAutomation(hub, { sector_id: sectorId });

    await register(automationId, "i".repeat(64));

    expect((await hub.client.get(`/automations/${automationId}`, asAdmin())).body.worker.cloud_instance_id).toBe("i".repeat(64));
  });

  it("when the path id is not a uuid and the body is bad, then 422 reports both", async () => {
    const result = await hub.client.post("/automations/not-a-uuid/worker", { cloud_instance_id: "" }, asAdmin());

    expect(result.status).toBe(422);
    expect(result.body.detail.map((issue: { loc: unknown[] }) => issue.loc)).toEqual([
      ["path", "automation_id"],
      ["body", "cloud_instance_id"],
    ]);
  });
});

describe("POST /automations/{automation_id}/worker/api-key (rotation)", () => {
  it("when the key is rotated, then 200 with the same worker and a new key, the old key is refused at once and the new one works", async () => {
    const automationId = await createAutomation(hub, { sector_id: sectorId });
    const original = await register(automationId, "vm-rotate");

    const result = await hub.client.post<Credentials>(`/automations/${automationId}/worker/api-key`, undefined, asAdmin());

    expect(result.status).toBe(200);
    issuedKeys.push(result.body.api_key);
    expect(result.body.id).toBe(original.id);
    expect(result.body.api_key).toMatch(/^whk_[A-Za-z0-9_-]{43}$/);
    expect(result.body.api_key).not.toBe(original.api_key);
    expect((await eventsOf(hub, automationId)).at(-1)).toMatchObject({
      eventType: "worker.api_key_rotated",
      actorId: admin,
      payload: { worker_id: original.id, cloud_instance_id: "vm-rotate" },
    });
    expect(await workerKeyAccepted(original.api_key)).toBe(false);
    expect(await workerKeyAccepted(result.body.api_key)).toBe(true);
  });

  it("when no worker is registered, then 404 and no event", async () => {
    const automationId = await createAutomation(hub, { sector_id: sectorId });
    const before = await countAllEvents(hub);

    const result = await hub.client.post(`/automations/${automationId}/worker/api-key`, undefined, asAdmin());

    expect(result.status).toBe(404);
    expect(await countAllEvents(hub)).toBe(before);
  });

  it("when the automation does not exist, then 404", async () => {
    const result = await hub.client.post("/automations/00000000-0000-4000-8000-000000000000/worker/api-key", undefined, asAdmin());

    expect(result.status).toBe(404);
  });
});

describe("DELETE /automations/{automation_id}/worker (unregister)", () => {
  it("when the worker is unregistered, then 204, the automation shows no worker, its key is refused and worker.unregistered is recorded", async () => {
    const automationId = await createAutomation(hub, { sector_id: sectorId });
    const credentials = await register(automationId, "vm-gone");

    const result = await hub.client.delete(`/automations/${automationId}/worker`, asAdmin());

    expect(result.status).toBe(204);
    expect((await hub.client.get(`/automations/${automationId}`, asAdmin())).body.worker).toBeNull();
    expect(await workerKeyAccepted(credentials.api_key)).toBe(false);
    expect((await eventsOf(hub, automationId)).at(-1)).toMatchObject({
      eventType: "worker.unregistered",
      actorId: admin,
      payload: { worker_id: credentials.id, cloud_instance_id: "vm-gone" },
    });
    const [row] = await hub.api.ctx.database.db.select().from(schema.workers).where(eq(schema.workers.id, credentials.id));
    expect(row?.unregisteredAt).toBeInstanceOf(Date);
  });

  it("when the worker had running jobs, then they go back to queued with job.requeued and are offered again", async () => {
    const automationId = await createAutomation(hub, { sector_id: sectorId, max_concurrent_jobs: 2 });
    const credentials = await register(automationId);
    const running = [await insertQueuedJob(hub, automationId, admin), await insertQueuedJob(hub, automationId, admin)];
    for (const job of running) {
      const claimed = await jobs.claim(hub.api.ctx.database.pool, {
        automationId,
        workerId: credentials.id,
        maxJobs: 1,
        candidateIds: [job.id],
        leaseSeconds: 60,
      });
      expect(claimed).toMatchObject({ kind: "claimed", jobs: [{ id: job.id }] });
    }

    const result = await hub.client.delete(`/automations/${automationId}/worker`, asAdmin());

    expect(result.status).toBe(204);
    for (const job of running) {
      // No back-off: the job keeps its available_at, so it keeps its place.
      expect(await jobs.find(hub.api.ctx.database.pool, EVERYWHERE, job.id)).toMatchObject({
        status: "queued",
        workerId: null,
        leaseExpiresAt: null,
        attempts: 1,
        availableAt: job.availableAt,
      });
      expect((await eventsOf(hub, job.id)).at(-1)).toMatchObject({
        eventType: "job.requeued",
        actorId: null,
        payload: { automation_id: automationId, reason: "worker_unregistered", attempts: 1, available_at: job.availableAt.toISOString() },
      });
    }
    expect((await hub.api.ctx.dispatch.ready.candidates(automationId, 10)).map((job) => job.id)).toEqual(running.map((job) => job.id));
  });

  it("when a worker is unregistered, then a new one can be registered for the automation", async () => {
    const automationId = await createAutomation(hub, { sector_id: sectorId });
    const old = await register(automationId, "vm-old");
    await hub.client.delete(`/automations/${automationId}/worker`, asAdmin());

    const replacement = await register(automationId, "vm-new");

    expect(replacement.id).not.toBe(old.id);
    expect((await hub.client.get(`/automations/${automationId}`, asAdmin())).body.worker.cloud_instance_id).toBe("vm-new");
    expect(await workerKeyAccepted(old.api_key)).toBe(false);
    expect(await workerKeyAccepted(replacement.api_key)).toBe(true);
  });

  it("when no worker is registered, then 404 and no event", async () => {
    const automationId = await createAutomation(hub, { sector_id: sectorId });
    await register(automationId);
    await hub.client.delete(`/automations/${automationId}/worker`, asAdmin());
    const before = await countAllEvents(hub);

    const again = await hub.client.delete(`/automations/${automationId}/worker`, asAdmin());

    expect(again.status).toBe(404);
    expect(again.body).toEqual({ detail: "No worker is registered for this automation" });
    expect(await countAllEvents(hub)).toBe(before);
  });
});

describe("roles", () => {
  it("when an employee or an anonymous caller manages a worker, then 403 or 401 and nothing changes", async () => {
    const automationId = await createAutomation(hub, { sector_id: sectorId });
    const credentials = await register(automationId, "vm-guarded");
    const before = await countAllEvents(hub);
    const employeeAuth = { token: employee.token };

    const answers = [
      await hub.client.post(`/automations/${automationId}/worker`, { cloud_instance_id: "vm-x" }, employeeAuth),
      await hub.client.post(`/automations/${automationId}/worker/api-key`, undefined, employeeAuth),
      await hub.client.delete(`/automations/${automationId}/worker`, employeeAuth),
      await hub.client.post(`/automations/${automationId}/worker`, { cloud_instance_id: "vm-x" }),
      await hub.client.post(`/automations/${automationId}/worker/api-key`),
      await hub.client.delete(`/automations/${automationId}/worker`),
      // A worker key is not a bearer credential.
      await hub.client.post(`/automations/${automationId}/worker/api-key`, undefined, { workerKey: credentials.api_key }),
    ];

    expect(answers.map((answer) => answer.status)).toEqual([403, 403, 403, 401, 401, 401, 401]);
    expect(await countAllEvents(hub)).toBe(before);
    expect(await workerKeyAccepted(credentials.api_key)).toBe(true);
  });
});

describe("secrets", () => {
  it("when automations and events are read, then no api key or api key hash appears anywhere", async () => {
    const automationId = await createAutomation(hub, { sector_id: sectorId });
    await register(automationId);
    await hub.client.post(`/automations/${automationId}/worker/api-key`, undefined, asAdmin()).then((rotated) => issuedKeys.push(rotated.body.api_key));
    await hub.client.delete(`/automations/${automationId}/worker`, asAdmin());
    const secrets = [...issuedKeys, ...issuedKeys.map(hashApiKey)];
    expect(issuedKeys.length).toBeGreaterThan(5);

    const reads = [
      await hub.client.get("/automations", asAdmin()),
      await hub.client.get(`/automations/${automationId}`, asAdmin()),
      await hub.client.get("/events?limit=1000", asAdmin()),
    ];
    const storedEvents = await hub.api.ctx.database.db.select().from(schema.events);

    for (const read of reads) {
      expect(read.status).toBe(200);
      expectNoSecrets(read.body, secrets);
    }
    expect(storedEvents.some((event) => event.eventType.startsWith("worker."))).toBe(true);
    expectNoSecrets(storedEvents, secrets);
  });
});
