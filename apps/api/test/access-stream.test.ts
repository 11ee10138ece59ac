/**
 * An open GET /events/stream of a sector-scoped employee (CONTRACT §6.22): it sends only the events
 * of its sectors' automations, and when an admin changes the employee's sectors the stream stays
 * open, sends what the new sectors reach from then on, and replays nothing from before.
 */
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { createAutomation, createSector } from "./automation-fixtures";
import { SseClient, startRelayFor, type RelayForHub } from "./event-stream-fixtures";
import { createJob } from "./job-fixtures";
import { useTestHub } from "./harness";

const hub = useTestHub({ HUB_EVENTS_STREAM_HEARTBEAT_SECONDS: "1" });

let relay: RelayForHub;
const clients: SseClient[] = [];

beforeAll(async () => {
  relay = await startRelayFor(hub);
});
afterAll(async () => {
  for (const client of clients) client.close();
  await relay?.stop();
});

async function automationInNewSector(): Promise<{ sectorId: string; automationId: string }> {
  const sector = await createSector(hub);
  return { sectorId: sector.id, automationId: await createAutomation(hub, { sector_id: sector.id }) };
}

const jobsCreated = (client: SseClient) =>
  client
    .events()
    .filter((event) => event.event_type === "job.created")
    .map((event) => event.aggregate_id as string);

describe("GET /events/stream for a sector-scoped employee", () => {
  it("when jobs are created in two sectors and then its sectors change, then it gets only the reached sector's events, stays open, and replays nothing", async () => {
    const first = await automationInNewSector();
    const second = await automationInNewSector();
    const employee = await hub.createUser("employee");
    await hub.client.patch(`/identity/users/${employee.id}`, { sector_ids: [first.sectorId] }, { token: hub.adminToken });
    const asEmployee = await SseClient.open(hub.api.url, { token: employee.token });
    const asAdmin = await SseClient.open(hub.api.url, { token: hub.adminToken });
    clients.push(asEmployee, asAdmin);

    const secondBefore = await createJob(hub, second.automationId);
    const firstBefore = await createJob(hub, first.automationId);
    await asAdmin.waitForEvent("job.created", firstBefore);
    await asEmployee.waitForEvent("job.created", firstBefore);

    const changed = await hub.client.patch(`/identity/users/${employee.id}`, { sector_ids: [second.sectorId] }, { token: hub.adminToken });
    expect(changed.status).toBe(200);
    const firstAfter = await createJob(hub, first.automationId);
    const secondAfter = await createJob(hub, second.automationId);
    await asAdmin.waitForEvent("job.created", secondAfter);
    await asEmployee.waitForEvent("job.created", secondAfter);

    expect(asEmployee.isEnded).toBe(false);
    expect(jobsCreated(asEmployee)).toEqual([firstBefore, secondAfter]);
    expect(jobsCreated(asAdmin)).toEqual([secondBefore, firstBefore, firstAfter, secondAfter]);
    const shownAutomations = new Set(asEmployee.events().map((event) => event.payload.automation_id ?? event.aggregate_id));
    expect([...shownAutomations].sort()).toEqual([first.automationId, second.automationId].sort());
  });

  it("when maintenance windows are created in two sectors and over the hub, then the stream sends the reached sector's and the hub-wide ones only", async () => {
    const reached = await automationInNewSector();
    const other = await automationInNewSector();
    const employee = await hub.createUser("employee");
    await hub.client.patch(`/identity/users/${employee.id}`, { sector_ids: [reached.sectorId] }, { token: hub.adminToken });
    const asEmployee = await SseClient.open(hub.api.url, { token: employee.token });
    const asAdmin = await SseClient.open(hub.api.url, { token: hub.adminToken });
    clients.push(asEmployee, asAdmin);
    const window = { starts_at: new Date(Date.now() + 3_600_000).toISOString(), ends_at: new Date(Date.now() + 7_200_000).toISOString() };
    const create = async (body: Record<string, unknown>) =>
      (await hub.client.post("/maintenance-windows", { ...window, ...body }, { token: hub.adminToken })).body.id as string;

    const hidden = await create({ sector_id: other.sectorId });
    const ofSector = await create({ sector_id: reached.sectorId });
    const ofAutomation = await create({ automation_id: reached.automationId });
    const hubWide = await create({});
    await asAdmin.waitForEvent("maintenance_window.created", hubWide);
    await asEmployee.waitForEvent("maintenance_window.created", hubWide);

    const windowsSeen = (client: SseClient) =>
      client
        .events()
        .filter((event) => event.event_type === "maintenance_window.created")
        .map((event) => event.aggregate_id as string);
    expect(windowsSeen(asEmployee)).toEqual([ofSector, ofAutomation, hubWide]);
    expect(windowsSeen(asAdmin)).toEqual([hidden, ofSector, ofAutomation, hubWide]);
    for (const id of [hidden, ofSector, ofAutomation, hubWide]) await hub.client.delete(`/maintenance-windows/${id}`, { token: hub.adminToken });
  });
});
