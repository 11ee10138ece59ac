/**
 * The reach has no holes (CONTRACT §6.22): every operation of /openapi.json that takes a bearer
 * credential is called as a sector-scoped employee and as an admin's api key scoped to one
 * automation, with data in two sectors. Path ids name what lies outside the caller's reach (or a
 * random id where the path names no automation data); list filters point at it; bodies name it.
 * No answer may carry an id of the other sector's records, no 2xx may answer for them, and after the
 * walk the other sector's data is as it was. A new endpoint joins the walk by being in the document.
 */
import { randomUUID } from "node:crypto";
import { eq } from "drizzle-orm";
import { beforeAll, describe, expect, it } from "vitest";
import { schema } from "@hub/db";
import { createApiKey } from "./api-key-fixtures";
import { createAutomation, createSector } from "./automation-fixtures";
import { createJob } from "./job-fixtures";
import { useTestHub } from "./harness";

// Webhooks configured, so their routes answer as they would in production rather than 503.
const hub = useTestHub({ HUB_WEBHOOK_ENCRYPTION_KEY: Buffer.alloc(32, 7).toString("base64") });

interface SectorData {
  sectorId: string;
  automationId: string;
  jobId: string;
  scheduleId: string;
}

async function sectorWithData(): Promise<SectorData> {
  const sector = await createSector(hub);
  const automationId = await createAutomation(hub, { sector_id: sector.id, parameters: [] });
  const jobId = await createJob(hub, automationId);
  const schedule = await hub.client.post(`/automations/${automationId}/schedules`, { cron: "@yearly" }, { token: hub.adminToken });
  expect(schedule.status).toBe(201);
  return { sectorId: sector.id, automationId, jobId, scheduleId: schedule.body.id };
}

type Operation = { method: string; path: string; security?: Array<Record<string, unknown>>; parameters?: Array<{ name: string; in: string }> };

let inside: SectorData;
let outside: SectorData;
let operations: Operation[];

beforeAll(async () => {
  inside = await sectorWithData();
  outside = await sectorWithData();
  const document = await hub.client.get("/openapi.json");
  operations = Object.entries(document.body.paths as Record<string, Record<string, Operation>>).flatMap(([path, methods]) =>
    Object.entries(methods)
      .filter(([method]) => ["get", "post", "put", "patch", "delete"].includes(method))
      .map(([method, operation]) => ({ ...operation, method, path })),
  );
});

const takesBearer = (operation: Operation) => (operation.security ?? []).some((scheme) => "OAuth2" in scheme || "ApiKey" in scheme);

/** The path with each id naming the other sector's record of that kind, or a random id. */
function pathOf(operation: Operation): string {
  const ids: Record<string, string> = {
    automation_id: outside.automationId,
    job_id: outside.jobId,
    schedule_id: outside.scheduleId,
    sector_id: outside.sectorId,
  };
  return operation.path.replace(/\{([^}]+)\}/g, (_, name: string) => ids[name] ?? randomUUID());
}

/** Each list filter that can name the other sector's data, pointed at it. */
function filterQueries(operation: Operation): string[] {
  const names = new Set((operation.parameters ?? []).filter((parameter) => parameter.in === "query").map((parameter) => parameter.name));
  const queries = [""];
  if (names.has("automation_id")) queries.push(`?automation_id=${outside.automationId}`);
  if (names.has("aggregate_id")) queries.push(`?aggregate_id=${outside.automationId}`, `?aggregate_id=${outside.jobId}`, `?aggregate_id=${outside.scheduleId}`);
  if (names.has("sector_id")) queries.push(`?sector_id=${outside.sectorId}`);
  if (names.has("schedule_id")) queries.push(`?schedule_id=${outside.scheduleId}`);
  return queries;
}

/** Bodies that name the other sector's automation wherever a body can. */
function bodiesOf(operation: Operation): unknown[] {
  if (operation.method === "get" || operation.method === "delete") return [undefined];
  const naming = {
    automation_id: outside.automationId,
    context: {},
    jobs: [{ automation_id: outside.automationId, context: {} }],
    cron: "@yearly",
    name: "walk",
    color: "#123456",
  };
  if (operation.path.startsWith("/jobs/bulk-")) return [naming, { status: ["queued", "failed", "cancelled", "completed"], dry_run: true }];
  return [naming];
}

async function call(method: string, url: string, token: string, body: unknown): Promise<{ status: number; text: string }> {
  const response = await fetch(`${hub.api.url}${url}`, {
    method: method.toUpperCase(),
    headers: { authorization: `Bearer ${token}`, ...(body === undefined ? {} : { "content-type": "application/json" }) },
    body: body === undefined ? undefined : JSON.stringify(body),
    signal: AbortSignal.timeout(3_000),
  }).catch((error: unknown) => ({ status: -1, text: async () => String(error) }));
  if (response.status === -1) return { status: -1, text: await response.text() };
  const real = response as Response;
  if ((real.headers.get("content-type") ?? "").startsWith("text/event-stream")) {
    // A stream that opened: read what it sends for a moment, then leave.
    const reader = real.body!.getReader();
    let text = "";
    const until = Date.now() + 500;
    while (Date.now() < until) {
      const chunk = await Promise.race([reader.read(), new Promise<null>((resolve) => setTimeout(() => resolve(null), 200))]);
      if (!chunk || chunk.done) break;
      text += new TextDecoder().decode(chunk.value);
    }
    await reader.cancel();
    return { status: real.status, text };
  }
  return { status: real.status, text: await real.text() };
}

async function walk(token: string): Promise<string[]> {
  const leaks: string[] = [];
  const outsideIds = [outside.sectorId, outside.automationId, outside.jobId, outside.scheduleId];
  for (const operation of operations.filter(takesBearer)) {
    const namesOutside = /\{(automation_id|job_id|schedule_id|sector_id)\}/.test(operation.path);
    for (const query of filterQueries(operation)) {
      for (const body of bodiesOf(operation)) {
        const url = `${pathOf(operation)}${query}`;
        const answer = await call(operation.method, url, token, body);
        const where = `${operation.method.toUpperCase()} ${url} → ${answer.status}`;
        if (answer.status === -1 || answer.status >= 500) leaks.push(`${where}: ${answer.text.slice(0, 200)}`);
        if (namesOutside && answer.status >= 200 && answer.status < 300) leaks.push(`${where}: answered for the other sector`);
        const leaked = outsideIds.filter((id) => answer.text.includes(id));
        if (leaked.length > 0) leaks.push(`${where}: shows ${leaked.join(", ")}`);
        if (/"(matched|affected)":\s*[1-9]/.test(answer.text) && operation.path.startsWith("/jobs/bulk-")) {
          // Only the reached job may be counted.
          const counted = JSON.parse(answer.text) as { job_ids: string[] };
          if (counted.job_ids.some((id) => id !== inside.jobId)) leaks.push(`${where}: counts the other sector's jobs`);
        }
      }
    }
  }
  return leaks;
}

async function expectOutsideUntouched(): Promise<void> {
  const db = hub.api.ctx.database.db;
  const [automation] = await db.select().from(schema.automations).where(eq(schema.automations.id, outside.automationId));
  const [job] = await db.select().from(schema.jobs).where(eq(schema.jobs.id, outside.jobId));
  const [schedule] = await db.select().from(schema.schedules).where(eq(schema.schedules.id, outside.scheduleId));
  const outsideJobs = await db.select({ id: schema.jobs.id }).from(schema.jobs).where(eq(schema.jobs.automationId, outside.automationId));
  expect(automation).toMatchObject({ isActive: true, isDevelopment: false });
  expect(job).toMatchObject({ status: "queued" });
  expect(schedule).toMatchObject({ deletedAt: null, enabled: true });
  expect(outsideJobs.map((row) => row.id)).toEqual([outside.jobId]);
}

describe("every bearer route of /openapi.json", () => {
  it("when walked as an employee of one sector, then nothing of the other sector shows, answers or changes", async () => {
    const employee = await hub.createUser("employee");
    await hub.client.patch(`/identity/users/${employee.id}`, { sector_ids: [inside.sectorId] }, { token: hub.adminToken });

    const leaks = await walk(employee.token);

    expect(leaks).toEqual([]);
    await expectOutsideUntouched();
  });

  it("when walked with an admin's api key scoped to one automation, then nothing of the other sector shows, answers or changes", async () => {
    const key = await createApiKey(hub, hub.adminToken, { automation_ids: [inside.automationId] });

    const leaks = await walk(key.key);

    expect(leaks).toEqual([]);
    await expectOutsideUntouched();
  });
});
