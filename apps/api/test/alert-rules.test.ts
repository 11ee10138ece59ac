/**
 * CONTRACT §6.19, the records: creating, reading, listing, replacing and deleting alert rules, the
 * threshold's validation per kind, roles, and reach (§6.22). Evaluation is in alerts-firing.test.ts.
 */
import { beforeAll, describe, expect, it } from "vitest";
import { createAutomation, createSector } from "./automation-fixtures";
import { useTestHub, type TestUser } from "./harness";

const hub = useTestHub();
let employee: TestUser;
let sectorId: string;
let automationId: string;

beforeAll(async () => {
  employee = await hub.createUser("employee");
  sectorId = (await createSector(hub)).id;
  automationId = await createAutomation(hub, { sector_id: sectorId });
});

const asAdmin = () => ({ token: hub.adminToken });

async function createRule(body: Record<string, unknown>): Promise<string> {
  const created = await hub.client.post<{ id: string }>("/alert-rules", body, asAdmin());
  if (created.status !== 201) throw new Error(`rule not created: ${created.status} ${JSON.stringify(created.body)}`);
  return created.body.id;
}

describe("POST /alert-rules", () => {
  it("when only kind and threshold are sent, then 201 and the record holds the defaults: every automation, no delay, 900 s and 10 jobs", async () => {
    const created = await hub.client.post("/alert-rules", { kind: "queue_age", threshold: 600 }, asAdmin());

    expect(created.status).toBe(201);
    expect(Object.keys(created.body)).toEqual(["id"]);
    const record = (await hub.client.get(`/alert-rules/${created.body.id}`, asAdmin())).body;
    expect(record).toMatchObject({
      id: created.body.id,
      automation_id: null,
      kind: "queue_age",
      threshold: 600,
      for_seconds: 0,
      window_seconds: 900,
      min_jobs: 10,
      description: "",
    });
  });

  it.each([
    ["queue_age", 0, "greater_than_equal"],
    ["queue_age", 2_592_001, "less_than_equal"],
    ["queue_age", 1.5, "int_from_float"],
    ["job_duration", undefined, "missing"],
    ["queue_depth", 1_000_001, "less_than_equal"],
    ["failure_rate", 0, "greater_than"],
    ["failure_rate", 1.01, "less_than_equal"],
    ["worker_offline", 5, "value_error"],
  ])("when a %s rule has threshold %s, then 422 %s at ['body','threshold']", async (kind, threshold, type) => {
    const answer = await hub.client.post("/alert-rules", { kind, ...(threshold === undefined ? {} : { threshold }) }, asAdmin());

    expect(answer.status).toBe(422);
    expect(answer.body.detail).toEqual([expect.objectContaining({ loc: ["body", "threshold"], type })]);
  });

  it("when thresholds are at their bounds in each unit, then each rule is created (worker_offline with null)", async () => {
    for (const body of [
      { kind: "queue_age", threshold: 1 },
      { kind: "job_duration", threshold: 2_592_000 },
      { kind: "queue_depth", threshold: 1_000_000 },
      { kind: "failure_rate", threshold: 1, window_seconds: 60, min_jobs: 1 },
      { kind: "failure_rate", threshold: 0.001 },
      { kind: "worker_offline", threshold: null },
      { kind: "worker_offline" },
    ]) {
      expect((await hub.client.post("/alert-rules", body, asAdmin())).status, JSON.stringify(body)).toBe(201);
    }
  });

  it("when several fields are wrong, then every problem is reported at once, the threshold's among them", async () => {
    const answer = await hub.client.post(
      "/alert-rules",
      { kind: "failure_rate", threshold: 2, for_seconds: 86_401, window_seconds: 59, min_jobs: 0 },
      asAdmin(),
    );

    expect(answer.status).toBe(422);
    expect(answer.body.detail.map((issue: { loc: unknown[] }) => issue.loc)).toEqual(
      expect.arrayContaining([
        ["body", "threshold"],
        ["body", "for_seconds"],
        ["body", "window_seconds"],
        ["body", "min_jobs"],
      ]),
    );
  });

  it("when the automation_id names no automation, then 422 value_error at ['body','automation_id']", async () => {
    const answer = await hub.client.post(
      "/alert-rules",
      { automation_id: "00000000-0000-4000-8000-000000000000", kind: "queue_depth", threshold: 5 },
      asAdmin(),
    );

    expect(answer.status).toBe(422);
    expect(answer.body.detail).toEqual([expect.objectContaining({ loc: ["body", "automation_id"], type: "value_error" })]);
  });

  it("when an employee creates, replaces or deletes a rule, then 403, and it reads rules", async () => {
    const id = await createRule({ automation_id: automationId, kind: "queue_depth", threshold: 5 });
    const asEmployee = { token: employee.token };

    expect((await hub.client.post("/alert-rules", { kind: "queue_depth", threshold: 5 }, asEmployee)).status).toBe(403);
    expect((await hub.client.put(`/alert-rules/${id}`, { kind: "queue_depth", threshold: 6 }, asEmployee)).status).toBe(403);
    expect((await hub.client.delete(`/alert-rules/${id}`, asEmployee)).status).toBe(403);
    expect((await hub.client.get(`/alert-rules/${id}`, asEmployee)).status).toBe(200);
    expect((await hub.client.get("/alerts", asEmployee)).status).toBe(200);
  });
});

describe("GET, PUT and DELETE /alert-rules/{rule_id}", () => {
  it("when a rule is replaced, then omitted fields take their defaults, and after a delete it is 404", async () => {
    const id = await createRule({ automation_id: automationId, kind: "failure_rate", threshold: 0.2, window_seconds: 600, min_jobs: 5, description: "x" });

    const replaced = await hub.client.put(`/alert-rules/${id}`, { automation_id: automationId, kind: "failure_rate", threshold: 0.3 }, asAdmin());

    expect(replaced.status).toBe(200);
    expect(replaced.body).toMatchObject({ id, kind: "failure_rate", threshold: 0.3, window_seconds: 900, min_jobs: 10, description: "" });
    expect((await hub.client.delete(`/alert-rules/${id}`, asAdmin())).status).toBe(204);
    expect((await hub.client.get(`/alert-rules/${id}`, asAdmin())).status).toBe(404);
    expect((await hub.client.delete(`/alert-rules/${id}`, asAdmin())).status).toBe(404);
  });

  it("when rules are listed with automation_id and kind filters, then only the matching ones come, oldest first", async () => {
    const other = await createAutomation(hub, { sector_id: sectorId });
    const first = await createRule({ automation_id: other, kind: "job_duration", threshold: 60 });
    const second = await createRule({ automation_id: other, kind: "queue_depth", threshold: 60 });

    const all = await hub.client.get(`/alert-rules?automation_id=${other}`, asAdmin());
    const durations = await hub.client.get(`/alert-rules?automation_id=${other}&kind=job_duration`, asAdmin());

    expect(all.body.map((rule: { id: string }) => rule.id)).toEqual([first, second]);
    expect(durations.body.map((rule: { id: string }) => rule.id)).toEqual([first]);
  });

  it("when an employee of another sector reads a rule of this sector's automation, then 404, and a rule for every automation shows", async () => {
    const scoped = await hub.createUser("employee");
    const otherSector = (await createSector(hub)).id;
    await hub.client.patch(`/identity/users/${scoped.id}`, { sector_ids: [otherSector] }, asAdmin());
    const own = await createRule({ automation_id: automationId, kind: "queue_depth", threshold: 7 });
    const everywhere = await createRule({ kind: "queue_depth", threshold: 8 });

    expect((await hub.client.get(`/alert-rules/${own}`, { token: scoped.token })).status).toBe(404);
    expect((await hub.client.get(`/alert-rules/${everywhere}`, { token: scoped.token })).status).toBe(200);
    const listed = (await hub.client.get("/alert-rules?limit=1000", { token: scoped.token })).body.map((rule: { id: string }) => rule.id);
    expect(listed).toContain(everywhere);
    expect(listed).not.toContain(own);
  });
});
