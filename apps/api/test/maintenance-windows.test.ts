/**
 * CONTRACT §6.18, the records: POST/GET/PUT/DELETE /maintenance-windows, their 422s, the record's
 * active / next_start_at / next_end_at, the events, and who reads what (§6.22: an employee reads the
 * windows of its sectors' automations, of its sectors, and those over every automation).
 */
import { describe, expect, it } from "vitest";
import { createAutomation, createSector, eventsOf } from "./automation-fixtures";
import { useTestHub } from "./harness";

const hub = useTestHub();
const asAdmin = () => ({ token: hub.adminToken });

const inHours = (hours: number) => new Date(Date.now() + hours * 3_600_000).toISOString();

async function createWindow(body: Record<string, unknown>): Promise<string> {
  const created = await hub.client.post<{ id: string }>("/maintenance-windows", body, asAdmin());
  if (created.status !== 201) throw new Error(`window not created: ${created.status} ${JSON.stringify(created.body)}`);
  return created.body.id;
}

const locs = (body: { detail: Array<{ loc: unknown[]; type: string }> }) => body.detail.map((issue) => [issue.loc, issue.type]);

describe("maintenance window records", () => {
  it("when an admin creates a one-off window ahead, then the record shows it with next_start_at and next_end_at, not active", async () => {
    const sector = await createSector(hub);
    const startsAt = inHours(2);
    const endsAt = inHours(4);
    const id = await createWindow({ sector_id: sector.id, starts_at: startsAt, ends_at: endsAt, description: "ERP upgrade" });

    const record = await hub.client.get(`/maintenance-windows/${id}`, asAdmin());
    expect(record.status).toBe(200);
    expect(record.body).toEqual({
      id,
      automation_id: null,
      sector_id: sector.id,
      starts_at: startsAt,
      ends_at: endsAt,
      cron: null,
      timezone: null,
      duration_seconds: null,
      drain: false,
      description: "ERP upgrade",
      active: false,
      next_start_at: startsAt,
      next_end_at: endsAt,
      created_at: expect.any(String),
    });
    expect((await eventsOf(hub, id)).map((event) => [event.eventType, event.payload])).toEqual([
      [
        "maintenance_window.created",
        { automation_id: null, sector_id: sector.id, starts_at: startsAt, ends_at: endsAt, drain: false, description: "ERP upgrade" },
      ],
    ]);
  });

  it("when a window is created with a start in the past, then it is in effect at once and .started is written in the same transaction", async () => {
    const startsAt = new Date(Date.now() - 60_000).toISOString();
    const endsAt = inHours(1);
    const sector = await createSector(hub);
    const id = await createWindow({ sector_id: sector.id, starts_at: startsAt, ends_at: endsAt });

    const record = await hub.client.get(`/maintenance-windows/${id}`, asAdmin());
    expect(record.body).toMatchObject({ active: true, next_start_at: null, next_end_at: endsAt });
    const started = (await eventsOf(hub, id)).filter((event) => event.eventType === "maintenance_window.started");
    expect(started.map((event) => event.payload)).toEqual([{ starts_at: startsAt, ends_at: endsAt }]);
  });

  it("when a recurring window is created, then its timezone defaults to UTC, and next_start_at is its next fire", async () => {
    // Two hours from now, so the next fire is ahead and no occurrence is in effect whatever the time of day.
    const hour = (new Date().getUTCHours() + 2) % 24;
    const cron = `0 ${hour} * * *`;
    const automationId = await createAutomation(hub, { sector_id: (await createSector(hub)).id });
    const id = await createWindow({ automation_id: automationId, cron, duration_seconds: 3600, drain: true });

    const record = (await hub.client.get(`/maintenance-windows/${id}`, asAdmin())).body;
    expect(record).toMatchObject({
      automation_id: automationId,
      cron,
      timezone: "UTC",
      duration_seconds: 3600,
      drain: true,
      starts_at: null,
      ends_at: null,
      active: false,
    });
    const nextStart = new Date(record.next_start_at);
    expect(nextStart.getUTCHours()).toBe(hour);
    expect(nextStart.getUTCMinutes()).toBe(0);
    expect(nextStart.getTime()).toBeGreaterThan(Date.now());
    expect(nextStart.getTime()).toBeLessThanOrEqual(Date.now() + 2 * 3_600_000);
    expect(new Date(record.next_end_at).getTime() - nextStart.getTime()).toBe(3_600_000);
    expect((await eventsOf(hub, id)).map((event) => event.eventType)).toEqual(["maintenance_window.created"]);
  });

  it("when a recurring window is created during one of its occurrences, then it is in effect at once: next_end_at ends that one, next_start_at is the following fire", async () => {
    // Fires at the top of the current hour for two hours, so now is inside an occurrence.
    const thisHour = new Date();
    thisHour.setUTCMinutes(0, 0, 0);
    const automationId = await createAutomation(hub, { sector_id: (await createSector(hub)).id });
    const id = await createWindow({ automation_id: automationId, cron: `0 ${thisHour.getUTCHours()} * * *`, duration_seconds: 7200 });

    const record = (await hub.client.get(`/maintenance-windows/${id}`, asAdmin())).body;
    expect(record.active).toBe(true);
    expect(record.next_end_at).toBe(new Date(thisHour.getTime() + 7_200_000).toISOString());
    expect(record.next_start_at).toBe(new Date(thisHour.getTime() + 24 * 3_600_000).toISOString());
    const started = (await eventsOf(hub, id)).filter((event) => event.eventType === "maintenance_window.started");
    expect(started.map((event) => event.payload)).toEqual([
      { starts_at: thisHour.toISOString(), ends_at: new Date(thisHour.getTime() + 7_200_000).toISOString() },
    ]);
  });

  it("when the body mixes the forms, gives neither, or names two scopes, then 422 value_error at body", async () => {
    const sector = await createSector(hub);
    const automationId = await createAutomation(hub, { sector_id: sector.id });
    for (const body of [
      { starts_at: inHours(1), ends_at: inHours(2), cron: "0 3 * * *", duration_seconds: 600 },
      {},
      { starts_at: inHours(1) },
      { cron: "0 3 * * *" },
    ]) {
      const answer = await hub.client.post("/maintenance-windows", body, asAdmin());
      expect(answer.status, JSON.stringify(body)).toBe(422);
      expect(locs(answer.body)).toEqual([[["body"], "value_error"]]);
    }
    const both = await hub.client.post(
      "/maintenance-windows",
      { automation_id: automationId, sector_id: sector.id, starts_at: inHours(1), ends_at: inHours(2) },
      asAdmin(),
    );
    expect(both.status).toBe(422);
    expect(locs(both.body)).toEqual([[["body"], "value_error"]]);
  });

  it("when ends_at is before starts_at, in the past, or more than 31 days after starts_at, then 422 value_error at body.ends_at", async () => {
    for (const [startsAt, endsAt] of [
      [inHours(3), inHours(2)],
      [inHours(-3), inHours(-2)],
      [inHours(1), inHours(1 + 31 * 24 + 1)],
    ]) {
      const answer = await hub.client.post("/maintenance-windows", { starts_at: startsAt, ends_at: endsAt }, asAdmin());
      expect(answer.status).toBe(422);
      expect(locs(answer.body)).toEqual([[["body", "ends_at"], "value_error"]]);
    }
  });

  it("when duration_seconds, cron or timezone is out of bounds, then 422 at each field, all at once", async () => {
    const answer = await hub.client.post("/maintenance-windows", { cron: "61 * * * *", timezone: "+01:00", duration_seconds: 59 }, asAdmin());
    expect(answer.status).toBe(422);
    expect(locs(answer.body)).toEqual([
      [["body", "cron"], "value_error"],
      [["body", "timezone"], "value_error"],
      [["body", "duration_seconds"], "greater_than_equal"],
    ]);
    const tooLong = await hub.client.post("/maintenance-windows", { cron: "0 3 * * *", duration_seconds: 604_801 }, asAdmin());
    expect(locs(tooLong.body)).toEqual([[["body", "duration_seconds"], "less_than_equal"]]);
  });

  it("when automation_id or sector_id names nothing, then 422 value_error at that field", async () => {
    const unknown = "00000000-0000-4000-8000-000000000000";
    const byAutomation = await hub.client.post("/maintenance-windows", { automation_id: unknown, starts_at: inHours(1), ends_at: inHours(2) }, asAdmin());
    expect(locs(byAutomation.body)).toEqual([[["body", "automation_id"], "value_error"]]);
    const bySector = await hub.client.post("/maintenance-windows", { sector_id: unknown, starts_at: inHours(1), ends_at: inHours(2) }, asAdmin());
    expect(locs(bySector.body)).toEqual([[["body", "sector_id"], "value_error"]]);
  });

  it("when a PUT changes a window, then omitted fields take their defaults, the event names the changes, and a PUT that changes nothing writes none", async () => {
    const sector = await createSector(hub);
    const body = { sector_id: sector.id, starts_at: inHours(2), ends_at: inHours(3), drain: true, description: "backup" };
    const id = await createWindow(body);

    const replaced = await hub.client.put(`/maintenance-windows/${id}`, { sector_id: sector.id, starts_at: body.starts_at, ends_at: body.ends_at }, asAdmin());
    expect(replaced.status).toBe(200);
    expect(replaced.body).toMatchObject({ drain: false, description: "" });
    const again = await hub.client.put(`/maintenance-windows/${id}`, replaced.body, asAdmin());
    expect(again.status).toBe(200);
    expect((await eventsOf(hub, id)).map((event) => [event.eventType, event.payload])).toEqual([
      ["maintenance_window.created", expect.any(Object)],
      ["maintenance_window.updated", { drain: false, description: "" }],
    ]);
  });

  it("when a window in effect is deleted, then it ends at once with .ended carrying the actual end, and reads answer 404", async () => {
    const sector = await createSector(hub);
    const startsAt = new Date(Date.now() - 60_000).toISOString();
    const id = await createWindow({ sector_id: sector.id, starts_at: startsAt, ends_at: inHours(2) });

    expect((await hub.client.delete(`/maintenance-windows/${id}`, asAdmin())).status).toBe(204);
    expect((await hub.client.get(`/maintenance-windows/${id}`, asAdmin())).status).toBe(404);
    expect((await hub.client.delete(`/maintenance-windows/${id}`, asAdmin())).status).toBe(404);
    const events = await eventsOf(hub, id);
    expect(events.map((event) => event.eventType)).toEqual([
      "maintenance_window.created",
      "maintenance_window.started",
      "maintenance_window.ended",
      "maintenance_window.deleted",
    ]);
    const ended = events[2]!.payload as { starts_at: string; ends_at: string };
    expect(ended.starts_at).toBe(startsAt);
    expect(Math.abs(new Date(ended.ends_at).getTime() - Date.now())).toBeLessThan(5000);
  });

  it("when an employee of one sector lists windows, then it sees its sector's, its automations' and the hub-wide ones, and writes are 403", async () => {
    const inside = await createSector(hub);
    const outside = await createSector(hub);
    const insideAutomation = await createAutomation(hub, { sector_id: inside.id });
    const outsideAutomation = await createAutomation(hub, { sector_id: outside.id });
    const window = { starts_at: inHours(5), ends_at: inHours(6) };
    const visible = [
      await createWindow({ ...window, sector_id: inside.id }),
      await createWindow({ ...window, automation_id: insideAutomation }),
      await createWindow({ ...window }),
    ];
    const hidden = [await createWindow({ ...window, sector_id: outside.id }), await createWindow({ ...window, automation_id: outsideAutomation })];
    const employee = await hub.createUser("employee");
    expect((await hub.client.patch(`/identity/users/${employee.id}`, { sector_ids: [inside.id] }, asAdmin())).status).toBe(200);

    const listed = await hub.client.get("/maintenance-windows?limit=200", { token: employee.token });
    expect(listed.status).toBe(200);
    const ids = listed.body.map((record: { id: string }) => record.id);
    for (const id of visible) expect(ids).toContain(id);
    for (const id of hidden) expect(ids).not.toContain(id);
    expect((await hub.client.get(`/maintenance-windows/${hidden[0]}`, { token: employee.token })).status).toBe(404);
    expect((await hub.client.get(`/maintenance-windows/${visible[0]}`, { token: employee.token })).status).toBe(200);
    expect((await hub.client.post("/maintenance-windows", window, { token: employee.token })).status).toBe(403);
    expect((await hub.client.delete(`/maintenance-windows/${visible[0]}`, { token: employee.token })).status).toBe(403);
    const events = await hub.client.get(`/events?aggregate_id=${hidden[0]}`, { token: employee.token });
    expect(events.body).toEqual([]);
    const shown = await hub.client.get(`/events?aggregate_id=${visible[0]}`, { token: employee.token });
    expect(shown.body.map((event: { event_type: string }) => event.event_type)).toEqual(["maintenance_window.created"]);
  });

  it("when windows are filtered by active, automation_id and sector_id, then only the matching ones come back", async () => {
    const sector = await createSector(hub);
    const running = await createWindow({ sector_id: sector.id, starts_at: inHours(-1), ends_at: inHours(1) });
    const ahead = await createWindow({ sector_id: sector.id, starts_at: inHours(1), ends_at: inHours(2) });
    const active = (await hub.client.get(`/maintenance-windows?sector_id=${sector.id}&active=true`, asAdmin())).body.map((record: { id: string }) => record.id);
    const inactive = (await hub.client.get(`/maintenance-windows?sector_id=${sector.id}&active=false`, asAdmin())).body.map(
      (record: { id: string }) => record.id,
    );
    expect(active).toEqual([running]);
    expect(inactive).toEqual([ahead]);
  });
});
