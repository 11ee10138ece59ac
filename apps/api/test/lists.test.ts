/** CONTRACT §6.2: keyset pagination, Link rel="next", unknown query parameters, GET /jobs filters. */
import { eq, sql } from "drizzle-orm";
import { beforeAll, describe, expect, it } from "vitest";
import { schema } from "@hub/db";
import { createSector } from "./automation-fixtures";
import { useTestHub, type HttpResult } from "./harness";
import { createAutomationWithWorker, createJob } from "./job-fixtures";

const hub = useTestHub();

const asAdmin = () => ({ token: hub.adminToken });

/** The next page's path from a Link header, or undefined when there is none. */
function nextLinkOf(result: HttpResult): string | undefined {
  const link = result.headers.get("link");
  if (link === null) return undefined;
  const match = /^<([^>]+)>; rel="next"$/.exec(link);
  if (!match) throw new Error(`not a rel="next" Link: ${link}`);
  return match[1];
}

/** Follows Link rel="next" from `firstPath` to the end; `between` runs after each page. */
async function walk(firstPath: string, between: () => Promise<void> = async () => {}): Promise<{ ids: string[]; pages: number }> {
  const ids: string[] = [];
  let path: string | undefined = firstPath;
  let pages = 0;
  while (path !== undefined) {
    const result: HttpResult<{ id: string }[]> = await hub.client.get(path, asAdmin());
    expect(result.status, JSON.stringify(result.body)).toBe(200);
    ids.push(...result.body.map((item) => item.id));
    pages += 1;
    path = nextLinkOf(result);
    await between();
  }
  return { ids, pages };
}

async function createJobs(automationId: string, n: number): Promise<string[]> {
  const result = await hub.client.post<{ ids: string[] }>(
    "/jobs/batch",
    { jobs: Array.from({ length: n }, () => ({ automation_id: automationId })) },
    asAdmin(),
  );
  expect(result.status).toBe(201);
  return result.body.ids;
}

function cursorOf(result: HttpResult): string {
  const next = nextLinkOf(result);
  if (!next) throw new Error("expected a next page");
  return new URLSearchParams(next.split("?")[1]).get("cursor")!;
}

describe("GET /jobs pagination", () => {
  it("when jobs are created while a client pages through them, then every job that existed is visited exactly once", async () => {
    // Arrange: 40 jobs, several per millisecond, so created_at ties and the id tie-break matters.
    const { automationId } = await createAutomationWithWorker(hub);
    const existing = await createJobs(automationId, 40);

    // Act: page 7 at a time while two new jobs arrive after every page.
    const created: string[] = [];
    const { ids, pages } = await walk(`/jobs?automation_id=${automationId}&limit=7`, async () => {
      created.push(await createJob(hub, automationId), await createJob(hub, automationId));
    });

    // Assert
    expect(new Set(ids).size).toBe(ids.length);
    expect(ids).toEqual(expect.arrayContaining(existing));
    expect(ids.filter((id) => !existing.includes(id) && !created.includes(id))).toEqual([]);
    expect(pages).toBeGreaterThanOrEqual(6);
  });

  it("when pages are walked, then they are newest first by (created_at, id) and the Link header is there exactly when more follow", async () => {
    const { automationId } = await createAutomationWithWorker(hub);
    await createJobs(automationId, 6);
    const all = await hub.client.get<{ id: string; created_at: string }[]>(`/jobs?automation_id=${automationId}`, asAdmin());
    const expected = [...all.body].sort((a, b) => b.created_at.localeCompare(a.created_at) || b.id.localeCompare(a.id)).map((job) => job.id);

    expect(all.body.map((job) => job.id)).toEqual(expected);
    expect(nextLinkOf(all)).toBeUndefined();
    expect(nextLinkOf(await hub.client.get(`/jobs?automation_id=${automationId}&limit=6`, asAdmin()))).toBeUndefined();
    const first = await hub.client.get<{ id: string }[]>(`/jobs?automation_id=${automationId}&limit=3`, asAdmin());
    const link = nextLinkOf(first)!;
    expect(link).toMatch(new RegExp(`^/jobs\\?automation_id=${automationId}&limit=3&cursor=[A-Za-z0-9_.-]+$`));
    const second = await hub.client.get<{ id: string }[]>(link, asAdmin());
    expect([...first.body, ...second.body].map((job) => job.id)).toEqual(expected);
    expect(nextLinkOf(second)).toBeUndefined();
  });

  it("when created_after and created_before are given, then the lower bound is inclusive and the upper exclusive", async () => {
    const { automationId } = await createAutomationWithWorker(hub);
    const [early, middle, late] = await createJobs(automationId, 3);
    const times = { [early!]: "2026-01-01T00:00:00.000Z", [middle!]: "2026-01-02T00:00:00.000Z", [late!]: "2026-01-03T00:00:00.000Z" };
    for (const [id, at] of Object.entries(times))
      await hub.api.ctx.database.db
        .update(schema.jobs)
        .set({ createdAt: new Date(at) })
        .where(eq(schema.jobs.id, id));
    const list = async (query: string) =>
      (await hub.client.get<{ id: string }[]>(`/jobs?automation_id=${automationId}&${query}`, asAdmin())).body.map((job) => job.id);

    expect(await list("created_after=2026-01-02T00:00:00Z")).toEqual([late, middle]);
    expect(await list("created_before=2026-01-02T00:00:00Z")).toEqual([early]);
    expect(await list("created_after=2026-01-01T00:00:00Z&created_before=2026-01-03T00:00:00Z")).toEqual([middle, early]);
    expect(await list("created_after=2026-01-02T01:00:00%2B01:00")).toEqual([late, middle]);
    const bad = await hub.client.get(`/jobs?created_after=yesterday`, asAdmin());
    expect(bad.status).toBe(422);
    expect(bad.body.detail).toEqual([expect.objectContaining({ loc: ["query", "created_after"], type: "datetime_parsing" })]);
  });

  it("when status is a comma-separated list, then jobs of any of those statuses are listed, and an unknown one is a 422 enum", async () => {
    const { automationId } = await createAutomationWithWorker(hub);
    const [queued, cancelled] = await createJobs(automationId, 2);
    expect((await hub.client.post(`/jobs/${cancelled}/cancel`, undefined, asAdmin())).status).toBe(200);
    const list = async (query: string) =>
      (await hub.client.get<{ id: string }[]>(`/jobs?automation_id=${automationId}&${query}`, asAdmin())).body.map((job) => job.id).sort();

    expect(await list("status=queued,cancelled")).toEqual([queued, cancelled].sort());
    expect(await list("status=cancelled&status=queued")).toEqual([queued, cancelled].sort());
    expect(await list("status=cancelled")).toEqual([cancelled]);
    expect(await list("status=failed,completed")).toEqual([]);
    const bad = await hub.client.get("/jobs?status=queued,done", asAdmin());
    expect(bad.status).toBe(422);
    expect(bad.body.detail).toEqual([
      { loc: ["query", "status"], type: "enum", msg: "Input should be 'queued', 'running', 'completed', 'failed' or 'cancelled'" },
    ]);
  });

  it.each([
    ["0", "greater_than_equal"],
    ["1001", "less_than_equal"],
  ])("when limit is %s, then 422 %s; 1 and 1000 are accepted", async (limit, type) => {
    const result = await hub.client.get(`/jobs?limit=${limit}`, asAdmin());
    expect(result.status).toBe(422);
    expect(result.body.detail).toEqual([expect.objectContaining({ loc: ["query", "limit"], type })]);
    expect((await hub.client.get("/jobs?limit=1", asAdmin())).body).toHaveLength(1);
    expect((await hub.client.get("/jobs?limit=1000", asAdmin())).status).toBe(200);
  });
});

describe("cursors", () => {
  let cursor: string;
  beforeAll(async () => {
    const { automationId } = await createAutomationWithWorker(hub);
    await createJobs(automationId, 3);
    cursor = cursorOf(await hub.client.get("/jobs?limit=1", asAdmin()));
  });

  const refusal = { loc: ["query", "cursor"], type: "value_error", msg: expect.stringMatching(/^Value error, /) };

  it("when the cursor is ours, then the next page follows it", async () => {
    expect((await hub.client.get(`/jobs?limit=1&cursor=${cursor}`, asAdmin())).status).toBe(200);
  });

  it.each([
    ["garbage", () => "not-a-cursor"],
    ["empty", () => ""],
    [
      "a tampered position",
      () =>
        `${Buffer.from(
          Buffer.from(cursor.split(".")[0]!, "base64url")
            .toString()
            .replace(/"at":"\d/, '"at":"1'),
        ).toString("base64url")}.${cursor.split(".")[1]}`,
    ],
    ["a changed character", () => `${cursor.slice(0, 5)}${cursor[5] === "A" ? "B" : "A"}${cursor.slice(6)}`],
    ["a truncated cursor", () => cursor.slice(0, -2)],
  ])("when the cursor is %s, then 422 value_error at query.cursor", async (_name, make) => {
    const result = await hub.client.get(`/jobs?cursor=${encodeURIComponent(make())}`, asAdmin());
    expect(result.status).toBe(422);
    expect(result.body.detail).toEqual([refusal]);
  });

  it("when a /jobs cursor is given to /events or /sectors, then 422: a cursor is bound to its list", async () => {
    for (const path of ["/events", "/sectors", "/automations", "/identity/users"]) {
      const result = await hub.client.get(`${path}?cursor=${cursor}`, asAdmin());
      expect(result.status, path).toBe(422);
      expect(result.body.detail).toEqual([refusal]);
    }
  });

  it("when the cursor and other parameters are wrong, then every problem is reported at once", async () => {
    const result = await hub.client.get("/jobs?cursor=x&limit=0&statuss=failed", asAdmin());
    expect(result.status).toBe(422);
    expect(result.body.detail).toEqual(
      expect.arrayContaining([refusal, expect.objectContaining({ loc: ["query", "limit"] }), expect.objectContaining({ loc: ["query", "statuss"] })]),
    );
    expect(result.body.detail).toHaveLength(3);
  });
});

describe("unknown query parameters", () => {
  const extra = (name: string) => ({ loc: ["query", name], type: "extra_forbidden", msg: "Extra inputs are not permitted" });

  it.each(["/jobs?statuss=failed", "/events?sincee=2026-01-01", "/automations?sector=x", "/sectors?page=2", "/identity/users?offset=10"])(
    "when %s is requested, then 422 extra_forbidden: a misspelt filter never silently lists everything",
    async (path) => {
      const result = await hub.client.get(path, asAdmin());
      expect(result.status).toBe(422);
      expect(result.body.detail).toEqual([extra(path.split("?")[1]!.split("=")[0]!)]);
    },
  );

  it("when a route without query parameters gets one, then 422 too", async () => {
    const { automationId } = await createAutomationWithWorker(hub);
    const jobId = await createJob(hub, automationId);
    const result = await hub.client.get(`/jobs/${jobId}?foo=1&bar=2`, asAdmin());
    expect(result.status).toBe(422);
    expect(result.body.detail).toEqual([extra("foo"), extra("bar")]);
    expect((await hub.client.get("/identity/me?x=1", asAdmin())).status).toBe(422);
  });
});

describe("GET /events and GET /sectors pagination", () => {
  it("when events are written while a client pages through /events, then every earlier event is visited exactly once, oldest first", async () => {
    await Promise.all(Array.from({ length: 12 }, () => createSector(hub)));
    const existing = (await hub.api.ctx.database.db.select({ id: schema.events.id }).from(schema.events)).map((row) => row.id);

    const { ids } = await walk("/events?limit=9", async () => {
      await createSector(hub);
    });

    expect(new Set(ids).size).toBe(ids.length);
    expect(ids).toEqual(expect.arrayContaining(existing));
    const order = await hub.api.ctx.database.db
      .select({ id: schema.events.id })
      .from(schema.events)
      .where(sql`${schema.events.id} in ${ids}`)
      .orderBy(schema.events.createdAt, schema.events.id);
    expect(ids).toEqual(order.map((row) => row.id));
  });

  it("when events are paged with a filter and the default limit, then the Link keeps the filter", async () => {
    const result = await hub.client.get("/events?event_type=sector.created&limit=2", asAdmin());
    expect(nextLinkOf(result)).toMatch(/^\/events\?event_type=sector.created&limit=2&cursor=/);
    const everything = await hub.client.get<unknown[]>("/events?event_type=sector.created", asAdmin());
    expect(everything.body.length).toBeLessThanOrEqual(200);
  });

  it("when sectors are created while a client pages through /sectors, then every earlier sector is visited exactly once", async () => {
    await Promise.all(Array.from({ length: 7 }, () => createSector(hub)));
    const existing = (await hub.api.ctx.database.db.select({ id: schema.sectors.id }).from(schema.sectors)).map((row) => row.id);

    const { ids } = await walk("/sectors?limit=2", async () => {
      await createSector(hub);
    });

    expect(new Set(ids).size).toBe(ids.length);
    expect(ids).toEqual(expect.arrayContaining(existing));
  });

  it("when automations and users are paged one at a time, then each is listed once", async () => {
    for (const path of ["/automations?limit=1", "/identity/users?limit=1"]) {
      const { ids } = await walk(path);
      const all = await hub.client.get<{ id: string }[]>(path.replace("limit=1", "limit=1000"), asAdmin());
      expect(ids, path).toEqual(all.body.map((item) => item.id));
    }
  });
});

describe("OpenAPI", () => {
  it("when /openapi.json is read, then GET /jobs documents its filters, limit, cursor and the Link header", async () => {
    const document = await hub.client.get("/openapi.json");
    const operation = document.body.paths["/jobs"].get;
    const parameters = operation.parameters as { name: string; schema: Record<string, unknown> }[];
    expect(parameters.map((parameter) => parameter.name)).toEqual([
      "automation_id",
      "status",
      "approval",
      "created_after",
      "created_before",
      "priority_min",
      "scheduled",
      "schedule_id",
      "depends_on",
      "created_by",
      "retry_of",
      "finished_after",
      "finished_before",
      "error_contains",
      "context",
      "limit",
      "cursor",
    ]);
    // CONTRACT §6.21: a list of statuses, comma-separated (style form, explode false).
    expect(parameters.find((parameter) => parameter.name === "status")).toMatchObject({
      style: "form",
      explode: false,
      schema: { type: "array", items: { enum: expect.arrayContaining(["queued", "running"]) } },
    });
    expect(parameters.find((parameter) => parameter.name === "created_after")?.schema).toMatchObject({ type: "string", format: "date-time" });
    expect(parameters.find((parameter) => parameter.name === "limit")?.schema).toMatchObject({ default: 100, minimum: 1, maximum: 1000 });
    expect(operation.responses["200"].headers.Link.description).toMatch(/rel="next"/);
    for (const path of ["/events", "/automations", "/sectors", "/identity/users"]) {
      expect(document.body.paths[path].get.responses["200"].headers.Link, path).toBeDefined();
    }
  });
});
