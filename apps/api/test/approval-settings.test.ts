/**
 * An automation's approval settings (CONTRACT §6.17): `requires_approval`, `approver_ids` and
 * `approval_timeout_seconds` on POST and PUT /automations, in the record and the events, and how
 * `approver_ids` is checked (unknown, inactive or repeated ids → 422 at ["body","approver_ids",k]).
 */
import { randomUUID } from "node:crypto";
import { beforeAll, describe, expect, it } from "vitest";
import { createSector, eventsOf, uniqueSlug } from "./automation-fixtures";
import { useTestHub, type TestUser } from "./harness";

const UNKNOWN_USER = "00000000-0000-4000-8000-000000000000";

const hub = useTestHub();
let sectorId: string;
let alice: TestUser;
let bob: TestUser;

beforeAll(async () => {
  sectorId = (await createSector(hub)).id;
  alice = await hub.createUser("employee");
  bob = await hub.createUser("admin");
});

const asAdmin = () => ({ token: hub.adminToken });
const create = (body: Record<string, unknown>) =>
  hub.client.post<any>("/automations", { name: "Payouts", slug: uniqueSlug("payouts"), sector_id: sectorId, ...body }, asAdmin());
const replacement = (body: Record<string, unknown> = {}) => ({
  name: "Payouts",
  description: "",
  sector_id: sectorId,
  max_concurrent_jobs: 1,
  parameters: [],
  ...body,
});

describe("approval settings of an automation", () => {
  it("when an automation is created without them, then it requires no approval, has no approvers and no timeout", async () => {
    const created = await create({});

    const record = await hub.client.get(`/automations/${created.body.id}`, asAdmin());
    expect(record.body).toMatchObject({ requires_approval: false, approver_ids: [], approval_timeout_seconds: null });
    const [event] = await eventsOf(hub, created.body.id);
    expect(event!.payload).not.toHaveProperty("requires_approval");
    expect(event!.payload).not.toHaveProperty("approver_ids");
  });

  it("when an automation is created requiring approval by two users with a timeout, then the record and automation.created carry them", async () => {
    const created = await create({ requires_approval: true, approver_ids: [alice.id, bob.id], approval_timeout_seconds: 3600 });

    expect(created.status).toBe(201);
    const record = await hub.client.get(`/automations/${created.body.id}`, asAdmin());
    expect(record.body).toMatchObject({ requires_approval: true, approver_ids: [alice.id, bob.id], approval_timeout_seconds: 3600 });
    const [event] = await eventsOf(hub, created.body.id);
    expect(event!.payload).toMatchObject({ requires_approval: true, approver_ids: [alice.id, bob.id], approval_timeout_seconds: 3600 });
  });

  it("when approver_ids names an unknown user, an inactive one and one twice, then 422 at each k and nothing is created", async () => {
    const leaver = await hub.createUser("employee");
    expect((await hub.client.delete(`/identity/users/${leaver.id}`, asAdmin())).status).toBe(204);
    const slug = uniqueSlug("refused");

    const shape = await create({ slug, approver_ids: [alice.id, bob.id, alice.id] });
    const data = await create({ slug, approver_ids: [alice.id, UNKNOWN_USER, leaver.id] });

    expect(shape.status).toBe(422);
    expect(shape.body.detail).toEqual([expect.objectContaining({ loc: ["body", "approver_ids", 2], type: "value_error" })]);
    expect(data.status).toBe(422);
    expect(data.body.detail).toEqual([
      expect.objectContaining({ loc: ["body", "approver_ids", 1], type: "value_error" }),
      expect.objectContaining({ loc: ["body", "approver_ids", 2], type: "value_error" }),
    ]);
    const list = await hub.client.get<Array<{ slug: string }>>("/automations?limit=1000", asAdmin());
    expect(list.body.map((automation) => automation.slug)).not.toContain(slug);
  });

  it("when approval_timeout_seconds is below 60 or above 30 days, or 51 approvers are named, then 422", async () => {
    const short = await create({ approval_timeout_seconds: 59 });
    const long = await create({ approval_timeout_seconds: 2_592_001 });
    const many = await create({ approver_ids: Array.from({ length: 51 }, () => randomUUID()) });

    expect([short.status, long.status, many.status]).toEqual([422, 422, 422]);
    expect(short.body.detail[0].loc).toEqual(["body", "approval_timeout_seconds"]);
    expect(long.body.detail[0].loc).toEqual(["body", "approval_timeout_seconds"]);
    expect(many.body.detail[0].loc).toEqual(["body", "approver_ids"]);
  });

  it("when a PUT omits the approval settings, then they stay; when it changes them, then automation.updated names only the changed ones", async () => {
    const created = await create({ requires_approval: true, approver_ids: [alice.id], approval_timeout_seconds: 600 });
    const id = created.body.id;

    const kept = await hub.client.put(`/automations/${id}`, replacement({ description: "now described" }), asAdmin());
    const changed = await hub.client.put(
      `/automations/${id}`,
      replacement({ description: "now described", approver_ids: [bob.id], approval_timeout_seconds: null }),
      asAdmin(),
    );

    expect(kept.status).toBe(200);
    expect(kept.body).toMatchObject({ requires_approval: true, approver_ids: [alice.id], approval_timeout_seconds: 600 });
    expect(changed.status).toBe(200);
    expect(changed.body).toMatchObject({ requires_approval: true, approver_ids: [bob.id], approval_timeout_seconds: null });
    const updates = (await eventsOf(hub, id)).filter((event) => event.eventType === "automation.updated");
    expect(updates.map((event) => event.payload)).toEqual([{ description: "now described" }, { approver_ids: [bob.id], approval_timeout_seconds: null }]);
  });

  it("when a PUT names an approver who was deactivated since, then 422 at that k and the stored list stays", async () => {
    const leaving = await hub.createUser("employee");
    const created = await create({ approver_ids: [leaving.id] });
    expect((await hub.client.delete(`/identity/users/${leaving.id}`, asAdmin())).status).toBe(204);

    const refused = await hub.client.put(`/automations/${created.body.id}`, replacement({ approver_ids: [alice.id, leaving.id] }), asAdmin());

    expect(refused.status).toBe(422);
    expect(refused.body.detail).toEqual([expect.objectContaining({ loc: ["body", "approver_ids", 1], type: "value_error" })]);
    expect((await hub.client.get(`/automations/${created.body.id}`, asAdmin())).body.approver_ids).toEqual([leaving.id]);
  });
});
