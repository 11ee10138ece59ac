/** CONTRACT §6.14: GET /jobs across automations, by creator, finish time, error text and context values. */
import { eq } from "drizzle-orm";
import { beforeAll, describe, expect, it } from "vitest";
import { schema } from "@hub/db";
import { useTestHub, type HttpResult, type TestUser } from "./harness";
import { createAutomationWithWorker, createJob } from "./job-fixtures";

const hub = useTestHub();

let employee: TestUser;
let first: string;
let second: string;

beforeAll(async () => {
  employee = await hub.createUser("employee");
  first = (await createAutomationWithWorker(hub)).automationId;
  second = (await createAutomationWithWorker(hub)).automationId;
});

async function listIds(path: string, token = hub.adminToken): Promise<string[]> {
  const result: HttpResult<{ id: string }[]> = await hub.client.get(path, { token });
  expect(result.status, JSON.stringify(result.body)).toBe(200);
  return result.body.map((job) => job.id);
}

/** Sets a job finished (failed, with `error`) at `finishedAt`, as a worker's fail would leave it. */
async function finish(jobId: string, finishedAt: Date, error: string | null): Promise<void> {
  await hub.api.ctx.database.db
    .update(schema.jobs)
    .set({ status: error === null ? "completed" : "failed", error, finishedAt, startedAt: finishedAt })
    .where(eq(schema.jobs.id, jobId));
}

/** A unique text, so each test's values match only its own jobs. */
const unique = (stem: string) => `${stem}-${Math.random().toString(36).slice(2, 10)}`;

describe("GET /jobs across automations", () => {
  it("when no automation_id is given, then the jobs of every automation are listed newest first, and automation_id narrows to one", async () => {
    const tag = unique("run");
    const a = await createJob(hub, first, hub.adminToken, { tag });
    const b = await createJob(hub, second, hub.adminToken, { tag });
    const c = await createJob(hub, first, hub.adminToken, { tag });

    expect(await listIds(`/jobs?context.tag=${tag}`)).toEqual([c, b, a]);
    expect(await listIds(`/jobs?context.tag=${tag}&automation_id=${first}`)).toEqual([c, a]);
  });

  it("when an employee lists jobs, then it sees every automation's jobs, also those others created (employees read every job)", async () => {
    const tag = unique("seen");
    const byAdmin = await createJob(hub, first, hub.adminToken, { tag });
    const byEmployee = await createJob(hub, second, employee.token, { tag });

    expect(await listIds(`/jobs?context.tag=${tag}`, employee.token)).toEqual([byEmployee, byAdmin]);
    expect(await listIds(`/jobs?context.tag=${tag}&created_by=${employee.id}`, employee.token)).toEqual([byEmployee]);
  });

  it("when finished_after and finished_before are given, then the lower bound is inclusive, the upper exclusive, and unfinished jobs never match", async () => {
    const tag = unique("finished");
    const [early, middle, late, running] = [
      await createJob(hub, first, hub.adminToken, { tag }),
      await createJob(hub, first, hub.adminToken, { tag }),
      await createJob(hub, second, hub.adminToken, { tag }),
      await createJob(hub, second, hub.adminToken, { tag }),
    ];
    await finish(early!, new Date("2026-10-01T10:00:00.000Z"), null);
    await finish(middle!, new Date("2026-10-01T11:00:00.000Z"), "boom");
    await finish(late!, new Date("2026-10-01T12:00:00.000Z"), null);

    const window = "finished_after=2026-10-01T10:00:00Z&finished_before=2026-10-01T12:00:00Z";
    expect(await listIds(`/jobs?context.tag=${tag}&${window}`)).toEqual([middle, early]);
    expect(await listIds(`/jobs?context.tag=${tag}&finished_after=2026-10-01T00:00:00Z`)).not.toContain(running);
  });

  it("when error_contains is given, then the jobs whose error holds that text in any case match, with % and _ taken literally", async () => {
    const tag = unique("errors");
    const [refused, percent, other, none] = [
      await createJob(hub, first, hub.adminToken, { tag }),
      await createJob(hub, second, hub.adminToken, { tag }),
      await createJob(hub, second, hub.adminToken, { tag }),
      await createJob(hub, first, hub.adminToken, { tag }),
    ];
    const at = new Date();
    await finish(refused!, at, "The LEDGER refused invoice 42");
    await finish(percent!, at, "quota at 100% for ledger_x");
    await finish(other!, at, "timeout");
    await finish(none!, at, null);

    expect(await listIds(`/jobs?context.tag=${tag}&error_contains=ledger`)).toEqual([percent, refused]);
    expect(await listIds(`/jobs?context.tag=${tag}&error_contains=${encodeURIComponent("100%")}`)).toEqual([percent]);
    expect(await listIds(`/jobs?context.tag=${tag}&error_contains=r_x`)).toEqual([percent]);
    expect(await listIds(`/jobs?context.tag=${tag}&error_contains=r_`)).toEqual([percent]);
  });
});

describe("GET /jobs context filters", () => {
  it("when context.<name>=<value> is given, then only jobs whose top-level key holds that very string match: not numbers, booleans, objects, arrays or other cases", async () => {
    const value = unique("acme");
    const match = await createJob(hub, first, hub.adminToken, { customer: value, n: "5" });
    await createJob(hub, first, hub.adminToken, { customer: value.toUpperCase() });
    await createJob(hub, second, hub.adminToken, { customer: [value] });
    await createJob(hub, second, hub.adminToken, { nested: { customer: value } });
    const numeric = await createJob(hub, second, hub.adminToken, { n: 5, customer: value });
    await createJob(hub, second, hub.adminToken, { flag: true, customer: unique("other") });

    expect(await listIds(`/jobs?context.customer=${value}`)).toEqual([numeric, match]);
    expect(await listIds(`/jobs?context.customer=${value}&context.n=5`)).toEqual([match]);
    expect(await listIds(`/jobs?context.flag=true&context.customer=${value}`)).toEqual([]);
    expect(await listIds(`/jobs?context.unheard_of=${value}`)).toEqual([]);
  });

  it("when the deepObject form context[<name>]=<value> is used, as the typed client sends it, then it is the same filter, and names may hold dots and brackets", async () => {
    const value = unique("deep");
    const plain = await createJob(hub, first, hub.adminToken, { region: value });
    const dotted = await createJob(hub, second, hub.adminToken, { "a.b": value, "x[y]": value });

    expect(await listIds(`/jobs?${encodeURIComponent("context[region]")}=${value}`)).toEqual([plain]);
    expect(await listIds(`/jobs?context[region]=${value}`)).toEqual([plain]);
    expect(await listIds(`/jobs?context.a.b=${value}`)).toEqual([dotted]);
    expect(await listIds(`/jobs?context[a.b]=${value}&context.x[y]=${value}`)).toEqual([dotted]);
  });

  it("when five filters are given they all hold (and), and an empty value matches an empty string", async () => {
    const value = unique("five");
    const all = { a: value, b: value, c: value, d: value, e: "" };
    const match = await createJob(hub, first, hub.adminToken, all);
    await createJob(hub, first, hub.adminToken, { ...all, e: "not empty" });

    expect(await listIds(`/jobs?context.a=${value}&context.b=${value}&context.c=${value}&context.d=${value}&context.e=`)).toEqual([match]);
  });

  it("when context filters are paged, then the Link keeps them and every match is visited once", async () => {
    const value = unique("paged");
    const created: string[] = [];
    for (let i = 0; i < 5; i++) created.push(await createJob(hub, i % 2 === 0 ? first : second, hub.adminToken, { batch: value }));
    await createJob(hub, first, hub.adminToken, { batch: unique("not-this") });

    const seen: string[] = [];
    let path: string | undefined = `/jobs?context[batch]=${value}&limit=2`;
    while (path) {
      const page: HttpResult<{ id: string }[]> = await hub.client.get(path, { token: hub.adminToken });
      expect(page.status).toBe(200);
      seen.push(...page.body.map((job) => job.id));
      path = /^<([^>]+)>; rel="next"$/.exec(page.headers.get("link") ?? "")?.[1];
    }
    expect(seen).toEqual(created.reverse());
  });
});

describe("GET /jobs find filters: 422", () => {
  const problemsOf = async (query: string) => {
    const result: HttpResult<{ detail: { loc: unknown[]; type: string; msg: string }[] }> = await hub.client.get(`/jobs?${query}`, { token: hub.adminToken });
    expect(result.status).toBe(422);
    return result.body.detail;
  };

  it("when a sixth context filter is given, then 422 value_error at [query], and context filters are never extra_forbidden", async () => {
    const six = ["a", "b", "c", "d", "e", "f"].map((name) => `context.${name}=1`).join("&");
    expect(await problemsOf(six)).toEqual([{ loc: ["query"], type: "value_error", msg: expect.stringContaining("at most 5") }]);
    // The same name twice is two filters.
    expect(await problemsOf("context.a=1&context.a=2&context[b]=1&context[c]=1&context.d=1&context.e=1")).toMatchObject([
      { loc: ["query"], type: "value_error" },
    ]);
  });

  it("when a name is empty or longer than 100 characters, then 422 string_too_short / string_too_long at [query, context.<name>], with every other problem", async () => {
    const long = "n".repeat(101);
    expect(await problemsOf(`context.=x&context[]=y&context.${long}=z&error_contains=&created_by=nope&finished_after=yesterday&bogus=1`)).toEqual(
      expect.arrayContaining([
        { loc: ["query", "context."], type: "string_too_short", msg: "String should have at least 1 character" },
        { loc: ["query", `context.${"n".repeat(91)}…`], type: "string_too_long", msg: "String should have at most 100 characters" },
        expect.objectContaining({ loc: ["query", "error_contains"], type: "string_too_short" }),
        expect.objectContaining({ loc: ["query", "created_by"], type: "uuid_parsing" }),
        expect.objectContaining({ loc: ["query", "finished_after"], type: "datetime_parsing" }),
        expect.objectContaining({ loc: ["query", "bogus"], type: "extra_forbidden" }),
      ]),
    );
    expect(await problemsOf("context.=x&context[]=y")).toHaveLength(2);
    // 100 characters is the longest name taken.
    expect((await hub.client.get(`/jobs?context.${"n".repeat(100)}=z`, { token: hub.adminToken })).status).toBe(200);
  });

  it("when error_contains is longer than 100 characters, or context is sent bare, then 422", async () => {
    expect(await problemsOf(`error_contains=${"e".repeat(101)}`)).toEqual([
      expect.objectContaining({ loc: ["query", "error_contains"], type: "string_too_long" }),
    ]);
    expect(await problemsOf("context=x")).toEqual([{ loc: ["query", "context"], type: "extra_forbidden", msg: "Extra inputs are not permitted" }]);
  });

  it("when a context value holds a NUL character, then 422 at its parameter, not 500", async () => {
    expect(await problemsOf("context.a=%00")).toEqual([expect.objectContaining({ loc: ["query", "context.a"], type: "value_error" })]);
  });
});

describe("GET /jobs find filters in /openapi.json", () => {
  it("when the document is read, then context is a deepObject parameter of string values, beside the other new filters", async () => {
    const document: HttpResult<{ paths: Record<string, { get: { parameters: { name: string; style?: string; explode?: boolean; schema: unknown }[] } }> }> =
      await hub.client.get("/openapi.json");
    const parameters = document.body.paths["/jobs"]!.get.parameters;
    expect(parameters.find((parameter) => parameter.name === "context")).toMatchObject({
      in: "query",
      required: false,
      style: "deepObject",
      explode: true,
      schema: { type: "object", additionalProperties: { type: "string" } },
    });
    expect(parameters.map((parameter) => parameter.name)).toEqual(
      expect.arrayContaining(["created_by", "finished_after", "finished_before", "error_contains"]),
    );
  });
});
