/**
 * The outbox stays fast as it grows: over 50k events, GET /events' query (listEvents) and the
 * relay's statements are answered by indexes in the order they need — no sequential scan, no
 * sort — and listEvents returns exactly the right rows in (created_at, id) order.
 */
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { type HubEvent, type Executor, events } from "@hub/db";
import { createRelayTestbed, type RelayTestbed } from "./harness";

const EVENTS = 50_000;
const AGGREGATES = 2_000;
const UNDISPATCHED = 25;

interface PlanNode {
  "Node Type": string;
  "Index Name"?: string;
  "Relation Name"?: string;
  "Actual Rows"?: number;
  "Rows Removed by Filter"?: number;
  Plans?: PlanNode[];
}

function planNodes(node: PlanNode): PlanNode[] {
  return [node, ...(node.Plans ?? []).flatMap(planNodes)];
}

let bed: RelayTestbed;
let all: HubEvent[];

/** Runs `query` on an executor that records the query config it sends, then EXPLAINs that exact SQL (with ANALYZE for reads, to see how many rows the index handed over). */
async function explainPlain(query: (db: Executor) => Promise<unknown>, options = { analyze: true }): Promise<PlanNode[]> {
  const statements: Array<{ sql: string; params: unknown[] }> = [];
  const recording: Executor = {
    query: (config, values) => {
      statements.push({ sql: config.text, params: values ?? config.values ?? [] });
      return bed.pool.query(config, values);
    },
  };
  await query(recording);
  return explainStatement(statements.at(-1)!, options);
}

async function explainStatement(statement: { sql: string; params: unknown[] }, options: { analyze: boolean }): Promise<PlanNode[]> {
  const result = await bed.pool.query<{ "QUERY PLAN": Array<{ Plan: PlanNode }> }>(
    `explain (format json${options.analyze ? ", analyze" : ""}) ${statement.sql}`,
    statement.params,
  );
  return planNodes(result.rows[0]!["QUERY PLAN"][0]!.Plan);
}

/**
 * The read of the relay's stamp-and-read statement: the subtree of its `limit` (the next batch).
 * The stamp's parts (the update of `events`, the deliveries it queues) sit under ModifyTable nodes
 * and are looked at by the stamp's own test below.
 */
function nextBatchRead(nodes: PlanNode[]): PlanNode[] {
  const limit = nodes.find((node) => node["Node Type"] === "Limit");
  expect(limit, "the statement reads a limited next batch").toBeDefined();
  return planNodes(limit!);
}

const INDEX_SCANS = ["Index Scan", "Index Only Scan", "Bitmap Index Scan"];

/** The plan reads `events` through `index` only: never a sequential scan. */
function expectReadThrough(nodes: PlanNode[], index: string) {
  expect(nodes.map((node) => node["Node Type"])).not.toContain("Seq Scan");
  const scans = nodes.filter((node) => INDEX_SCANS.includes(node["Node Type"]) || node["Node Type"] === "Bitmap Heap Scan");
  expect(scans.map((node) => node["Index Name"]).filter(Boolean)).toEqual([index]);
  return scans;
}

/** The expected answer of GET /events, computed in memory from every row. */
function expected(filter: events.EventFilter): string[] {
  return all
    .filter((event) => !filter.aggregateId || event.aggregateId === filter.aggregateId)
    .filter((event) => !filter.eventType || event.eventType === filter.eventType)
    .filter((event) => !filter.since || event.createdAt >= filter.since)
    .filter((event) => !filter.until || event.createdAt < filter.until)
    .sort((a, b) => a.createdAt.getTime() - b.createdAt.getTime() || (a.id < b.id ? -1 : a.id > b.id ? 1 : 0))
    .slice(0, filter.limit)
    .map((event) => event.id);
}

beforeAll(async () => {
  bed = await createRelayTestbed();
  // 50k events over 2,000 aggregates and 18 types; created_at in whole seconds, so many rows tie
  // and the id tie-break matters. All but the newest few are already dispatched.
  await bed.pool.query(
    `insert into events (aggregate_id, event_type, payload, created_at, dispatched_at)
     select a.ids[1 + (i % $2)],
            (array['sector.created','automation.created','automation.updated','automation.deactivated',
                   'automation.development_mode_entered','automation.development_mode_exited','worker.registered',
                   'worker.unregistered','worker.api_key_rotated','worker.status_changed','job.created','job.started',
                   'job.completed','job.failed','job.requeued','job.cancelled','user.created','user.deactivated'])[1 + (i * 7 % 18)],
            jsonb_build_object('n', i),
            timestamptz '2026-01-01' + make_interval(secs => i / 3),
            case when i <= $1 - $3 then timestamptz '2026-01-01' + make_interval(secs => i / 3 + 1) end
       from generate_series(1, $1) as i,
            (select array_agg(gen_random_uuid()) as ids from generate_series(1, $2)) as a`,
    [EVENTS, AGGREGATES, UNDISPATCHED],
  );
  await bed.pool.query("analyze events");
  all = await bed.db.query.events.findMany();
}, 60_000);

afterAll(async () => {
  await bed.stop();
});

describe("GET /events over a large outbox", () => {
  const someAggregate = () => all[12_345]!.aggregateId;
  const since = new Date("2026-01-01T01:00:00Z");
  const until = new Date("2026-01-01T02:00:00Z");

  const cases: Array<{ name: string; filter: () => events.EventFilter; index: string }> = [
    { name: "no filter", filter: () => ({ limit: 200 }), index: "events_created_idx" },
    { name: "since and until", filter: () => ({ since, until, limit: 1000 }), index: "events_created_idx" },
    { name: "aggregate_id", filter: () => ({ aggregateId: someAggregate(), limit: 200 }), index: "events_aggregate_created_idx" },
    {
      name: "aggregate_id and since",
      filter: () => ({ aggregateId: someAggregate(), since, limit: 200 }),
      index: "events_aggregate_created_idx",
    },
    { name: "event_type", filter: () => ({ eventType: "job.failed", limit: 1000 }), index: "events_type_created_idx" },
    {
      name: "event_type, since and until",
      filter: () => ({ eventType: "job.failed", since, until, limit: 200 }),
      index: "events_type_created_idx",
    },
  ];

  for (const { name, filter, index } of cases) {
    it(`when filtered by ${name}, then the rows come from ${index}, already in (created_at, id) order, and are exactly the right ones`, async () => {
      // Act
      const nodes = await explainPlain((db) => events.list(db, filter()));
      const rows = await events.list(bed.pool, filter());

      // Assert: the index hands over matching rows only (no filtering afterwards), and no more
      // than all the matches — the work follows the answer, not the table.
      const scans = expectReadThrough(nodes, index);
      const matches = expected({ ...filter(), limit: EVENTS }).length;
      for (const scan of scans) {
        expect(scan["Rows Removed by Filter"] ?? 0).toBe(0);
        expect(scan["Actual Rows"]).toBeLessThanOrEqual(matches);
      }
      expect(rows.length).toBeGreaterThan(0);
      expect(rows.map((row) => row.id)).toEqual(expected(filter()));
    });
  }
});

describe("the relay's statements over a large outbox", () => {
  it("when the relay reads undispatched events (all partitions or some), then only the partial index is walked, in position order", async () => {
    // Act
    const everything = nextBatchRead(await explainPlain((db) => events.selectUndispatched(db, { partitions: [...Array(32).keys()], limit: 500 })));
    const some = nextBatchRead(await explainPlain((db) => events.selectUndispatched(db, { partitions: [1, 5, 9], limit: 500 })));
    const rows = await events.selectUndispatched(bed.pool, { partitions: [...Array(32).keys()], limit: 500 });

    // Assert: the partial index holds the backlog only, already in position order (no sort).
    for (const nodes of [everything, some]) {
      expectReadThrough(nodes, "events_undispatched_idx");
      expect(nodes.map((node) => node["Node Type"])).not.toContain("Sort");
    }
    const [scan] = expectReadThrough(everything, "events_undispatched_idx");
    expect(scan!["Actual Rows"]).toBe(UNDISPATCHED);
    // From a scan floor, the index is entered at the floor: nothing below it is even visited.
    const fromFloor = nextBatchRead(
      await explainPlain((db) => events.selectUndispatched(db, { partitions: [...Array(32).keys()], limit: 500, fromPosition: EVENTS })),
    );
    const [floorScan] = expectReadThrough(fromFloor, "events_undispatched_idx");
    expect(floorScan!["Actual Rows"]).toBe(1);
    expect(floorScan!["Rows Removed by Filter"] ?? 0).toBe(0);
    expect(rows.map((row) => row.position)).toEqual(
      all
        .filter((event) => event.dispatchedAt === null)
        .map((event) => event.position)
        .sort((a, b) => a - b),
    );
  });

  it("when the relay stamps a batch, then it finds the rows through an index (never a scan of the table)", async () => {
    // Act
    const ids = all.filter((event) => event.dispatchedAt === null).map((event) => event.id);
    const nodes = await explainPlain((db) => events.markDispatched(db, ids), { analyze: false });

    // Assert: by primary key only. Never through the partial index of undispatched rows as well
    // (a BitmapAnd of the two): in a 40,000-job burst that read the whole backlog, 19,000 entries
    // and the dead ones, on every stamp. The same statement joins the stamped rows with
    // the webhook subscriptions (a table of a few rows) to queue their deliveries: `events` itself
    // is never scanned.
    const onEvents = nodes.filter((node) => node["Relation Name"] === "events" || String(node["Index Name"] ?? "").startsWith("events_"));
    expect(onEvents.map((node) => node["Node Type"])).not.toContain("Seq Scan");
    const indexes = onEvents.map((node) => node["Index Name"]).filter(Boolean);
    expect(indexes).toEqual(["events_pkey"]);
    const scanned = nodes.filter((node) => node["Node Type"] === "Seq Scan").map((node) => node["Relation Name"]);
    expect(scanned.filter((relation) => relation !== "webhooks")).toEqual([]);
  });
});
