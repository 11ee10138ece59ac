/**
 * Bounded sizes (CONTRACT §6.15): a job's context and result, an automation's texts, the 422 body
 * and a list page. The review's reproduction: jobs with ~1 MiB contexts made GET /jobs answer
 * 20 MiB and grew Redis by 25 MB, because the context is copied into every event, stream and
 * delivery; now a context over 64 KiB is refused before anything is stored.
 */
import { count, eq } from "drizzle-orm";
import { beforeAll, describe, expect, it } from "vitest";
import { schema } from "@hub/db";
import { createAutomation, createSector } from "./automation-fixtures";
import { useTestHub, type HttpResult } from "./harness";
import { createAutomationWithWorker } from "./job-fixtures";

const CONTEXT_MAX = 65_536;
const RESULT_MAX = 262_144;
// Small enough that a few jobs fill a page: what a full 8 MiB page does with 1,000 jobs.
const LIST_MAX = 16_384;

const hub = useTestHub({ HUB_LIST_MAX_BYTES: String(LIST_MAX) });
let automationId: string;
beforeAll(async () => {
  const sector = await createSector(hub);
  automationId = await createAutomation(hub, { sector_id: sector.id, parameters: [{ name: "note" }] });
});

/** `{"note":"…"}` of exactly `bytes` bytes as compact JSON; `é` (2 bytes in UTF-8) counts twice. */
function contextOf(bytes: number, char = "x"): { note: string } {
  const overhead = Buffer.byteLength('{"note":""}');
  const width = Buffer.byteLength(char);
  const body = char.repeat(Math.floor((bytes - overhead) / width));
  return { note: body + "x".repeat(bytes - overhead - Buffer.byteLength(body)) };
}

async function jobsOfAutomation(): Promise<number> {
  const [row] = await hub.api.ctx.database.db.select({ n: count() }).from(schema.jobs).where(eq(schema.jobs.automationId, automationId));
  return row!.n;
}

const contextTooLarge = (loc: (string | number)[]) => ({
  loc,
  msg: `Value error, must be at most ${CONTEXT_MAX} bytes as compact JSON (HUB_JOB_CONTEXT_MAX_BYTES)`,
  type: "value_error",
});

describe("a job's context", () => {
  it("when POST /jobs carries a context of one byte over 64 KiB as compact JSON, then 422 at body.context naming the limit, and no job is created", async () => {
    const before = await jobsOfAutomation();

    const atLimit = await hub.client.post("/jobs", { automation_id: automationId, context: contextOf(CONTEXT_MAX) }, { token: hub.adminToken });
    const over = await hub.client.post("/jobs", { automation_id: automationId, context: contextOf(CONTEXT_MAX + 1) }, { token: hub.adminToken });

    expect(atLimit.status).toBe(201);
    expect(over.status).toBe(422);
    expect(over.body).toEqual({ detail: [contextTooLarge(["body", "context"])] });
    expect(await jobsOfAutomation()).toBe(before + 1);
  });

  it("when the context is measured, then multi-byte characters count in UTF-8 bytes and the request's whitespace does not count", async () => {
    const multiByte = await hub.client.post(
      "/jobs",
      { automation_id: automationId, context: { note: "é".repeat(CONTEXT_MAX / 2) } },
      { token: hub.adminToken },
    );
    const spaced = await hub.client.post("/jobs", undefined, {
      token: hub.adminToken,
      rawBody: JSON.stringify({ automation_id: automationId, context: contextOf(CONTEXT_MAX) }, null, 40).replace(/"note"/, ' "note" '),
      headers: { "content-type": "application/json" },
    });

    expect(multiByte.status).toBe(422);
    expect(spaced.status).toBe(201);
  });

  it("when one item of POST /jobs/batch has a context over the limit, then 422 at that item's context, with every other problem, and no job is created", async () => {
    const before = await jobsOfAutomation();

    const result = await hub.client.post(
      "/jobs/batch",
      {
        jobs: [
          { automation_id: automationId, context: { note: "fine" } },
          { automation_id: automationId, context: contextOf(CONTEXT_MAX + 1) },
          { context: {} },
        ],
      },
      { token: hub.adminToken },
    );

    expect(result.status).toBe(422);
    expect(result.body.detail).toEqual([
      contextTooLarge(["body", "jobs", 1, "context"]),
      { loc: ["body", "jobs", 2, "automation_id"], msg: "Field required", type: "missing" },
    ]);
    expect(await jobsOfAutomation()).toBe(before);
  });

  it("when a schedule is created with a context over the limit, then 422 at body.context", async () => {
    const result = await hub.client.post(
      `/automations/${automationId}/schedules`,
      { cron: "0 6 * * *", timezone: "UTC", context: contextOf(CONTEXT_MAX + 1) },
      { token: hub.adminToken },
    );

    expect(result.status).toBe(422);
    expect(result.body.detail).toEqual([contextTooLarge(["body", "context"])]);
  });
});

describe("a job's result", () => {
  const resultOf = (bytes: number) => ({ note: contextOf(bytes).note });

  it("when a worker completes a job with a result over 256 KiB, then 422 at body.result before the job is even looked up", async () => {
    const { workerKey } = await createAutomationWithWorker(hub);

    const result = await hub.client.post(`/jobs/${crypto.randomUUID()}/complete`, { result: resultOf(RESULT_MAX + 1) }, { workerKey });

    expect(result.status).toBe(422);
    expect(result.body.detail).toEqual([
      { loc: ["body", "result"], msg: `Value error, must be at most ${RESULT_MAX} bytes as compact JSON (HUB_JOB_RESULT_MAX_BYTES)`, type: "value_error" },
    ]);
  });

  it("when one item of complete-batch has a result over the limit, then the whole request is refused at that item", async () => {
    const { workerKey } = await createAutomationWithWorker(hub);

    const result = await hub.client.post(
      "/jobs/complete-batch",
      {
        items: [
          { id: crypto.randomUUID(), result: {} },
          { id: crypto.randomUUID(), result: resultOf(RESULT_MAX + 1) },
        ],
      },
      { workerKey },
    );

    expect(result.status).toBe(422);
    expect(result.body.detail.map((issue: { loc: unknown }) => issue.loc)).toEqual([["body", "items", 1, "result"]]);
  });
});

describe("an automation's texts", () => {
  const createWith = async (fields: Record<string, unknown>) => {
    const sector = await createSector(hub);
    return hub.client.post(
      "/automations",
      { name: "Too much", slug: `too-much-${crypto.randomUUID()}`, sector_id: sector.id, ...fields },
      { token: hub.adminToken },
    );
  };

  it("when the description passes 10,000 characters or a parameter's passes 1,000, then 422 at each", async () => {
    const result = await createWith({ description: "d".repeat(10_001), parameters: [{ name: "a" }, { name: "b", description: "d".repeat(1001) }] });

    expect(result.status).toBe(422);
    expect(result.body.detail).toEqual([
      { loc: ["body", "parameters", 1, "description"], msg: "String should have at most 1000 characters", type: "string_too_long" },
      { loc: ["body", "description"], msg: "String should have at most 10000 characters", type: "string_too_long" },
    ]);
  });

  it("when there are more than 100 parameters, then 422 at body.parameters; 100 are accepted", async () => {
    const parameters = (n: number) => Array.from({ length: n }, (_, i) => ({ name: `p${i}` }));

    const over = await createWith({ parameters: parameters(101) });
    const atLimit = await createWith({ parameters: parameters(100) });

    expect(over.body.detail).toEqual([{ loc: ["body", "parameters"], msg: "List should have at most 100 items after validation", type: "too_long" }]);
    expect(atLimit.status).toBe(201);
  });
});

describe("the 422 body", () => {
  it("when a batch has 1,500 problems, then the body stays within 64 KiB and ends with 'More problems not shown'", async () => {
    const item = { automation_id: "not-a-uuid", priority: "high", run_at: "soon" };
    const result = await hub.client.post("/jobs/batch", { jobs: Array.from({ length: 500 }, () => item) }, { token: hub.adminToken });

    expect(result.status).toBe(422);
    expect(Buffer.byteLength(JSON.stringify(result.body))).toBeLessThanOrEqual(64 * 1024);
    expect(result.body.detail.at(-1)).toEqual({ loc: ["body"], msg: "More problems not shown", type: "value_error" });
    expect(result.body.detail[0].loc).toEqual(["body", "jobs", 0, "automation_id"]);
  });

  it("when an unknown query parameter has a 5,000-character name, then its loc repeats only 100 characters ending with …", async () => {
    const result = await hub.client.get(`/jobs?${"q".repeat(5000)}=1`, { token: hub.adminToken });

    expect(result.status).toBe(422);
    expect(result.body.detail).toEqual([{ loc: ["query", `${"q".repeat(99)}…`], msg: "Extra inputs are not permitted", type: "extra_forbidden" }]);
  });
});

describe("a list page", () => {
  it("when the items would pass HUB_LIST_MAX_BYTES, then the page ends before the item that would pass it, with a Link that still visits every item once", async () => {
    const sector = await createSector(hub);
    const listed = await createAutomation(hub, { sector_id: sector.id, parameters: [{ name: "note" }] });
    const created: string[] = [];
    for (let i = 0; i < 6; i++) {
      const job = await hub.client.post("/jobs", { automation_id: listed, context: contextOf(5000) }, { token: hub.adminToken });
      created.push(job.body.id);
    }

    const seen: string[] = [];
    let path: string | undefined = `/jobs?automation_id=${listed}&limit=100`;
    let pages = 0;
    while (path) {
      const page: HttpResult<{ id: string }[]> = await hub.client.get(path, { token: hub.adminToken });
      expect(page.status).toBe(200);
      const text = JSON.stringify(page.body);
      expect(Buffer.byteLength(text)).toBeLessThanOrEqual(LIST_MAX);
      seen.push(...page.body.map((job: { id: string }) => job.id));
      pages += 1;
      const link: string | null = page.headers.get("link");
      const next: URL | undefined = link ? new URL(/<([^>]+)>/.exec(link)![1]!, hub.api.url) : undefined;
      path = next ? `${next.pathname}${next.search}` : undefined;
    }

    expect(pages).toBeGreaterThan(1);
    expect([...seen].sort()).toEqual([...created].sort());
  });

  it("when one item alone passes HUB_LIST_MAX_BYTES, then the page still holds it", async () => {
    const sector = await createSector(hub);
    const listed = await createAutomation(hub, { sector_id: sector.id, parameters: [{ name: "note" }] });
    const job = await hub.client.post("/jobs", { automation_id: listed, context: contextOf(LIST_MAX * 2) }, { token: hub.adminToken });

    const page = await hub.client.get(`/jobs?automation_id=${listed}`, { token: hub.adminToken });

    expect(page.body.map((item: { id: string }) => item.id)).toEqual([job.body.id]);
    expect(page.headers.get("link")).toBeNull();
  });
});
