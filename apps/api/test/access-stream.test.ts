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
});
