/**
 * The webhook delivery loop's claim stays cheap behind a backlog: with thousands of deliveries
 * pending for one subscription, counting its leased ones and checking each candidate's order
 * (no earlier pending delivery of its aggregate) read a handful of rows, not the backlog, and the
 * claim takes exactly the deliveries that are next in their aggregates.
 */
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { type Executor, webhookDeliveries } from "@hub/db";
import { createRelayTestbed, type RelayTestbed } from "./harness";
import { subscribe } from "./webhook-harness";

const AGGREGATES = 1_000;
const EVENT_TYPES = ["job.created", "job.started", "job.completed"];
const IN_FLIGHT = 8;

interface PlanNode {
  "Node Type": string;
  "Index Name"?: string;
  "Relation Name"?: string;
  "Actual Rows"?: number;
  "Actual Loops"?: number;
  "Rows Removed by Filter"?: number;
  Plans?: PlanNode[];
}

function planNodes(node: PlanNode): PlanNode[] {
  return [node, ...(node.Plans ?? []).flatMap(planNodes)];
}

let bed: RelayTestbed;
let webhookId: string;

beforeAll(async () => {
  bed = await createRelayTestbed();
  ({ id: webhookId } = await subscribe(bed.pool, { url: "https://hooks.example.test/in", eventTypes: ["*"] }));
  // 1,000 aggregates with three published events each, every one with a pending delivery, in
  // position order per aggregate; the first delivery of the first 8 aggregates is in flight.
  await bed.pool.query(
    `with aggregates as (select gen_random_uuid() as id, n from generate_series(1, $2::int) n),
          written as (
            insert into events (aggregate_id, event_type, payload, dispatched_at)
            select a.id, t.type, '{}'::jsonb, now()
              from aggregates a cross join unnest($3::text[]) with ordinality t(type, k)
             order by a.n, t.k
            returning id, aggregate_id, position)
     insert into webhook_deliveries (webhook_id, event_id, aggregate_id, event_position)
     select $1, id, aggregate_id, position from written`,
    [webhookId, AGGREGATES, EVENT_TYPES],
  );
  await bed.pool.query(
    `update webhook_deliveries set lease_expires_at = now() + interval '30 seconds', lease_token = gen_random_uuid()
      where id in (select distinct on (aggregate_id) id from webhook_deliveries where webhook_id = $1
                    order by aggregate_id, event_position)
        and id in (select id from webhook_deliveries where webhook_id = $1 order by event_position limit $2 * 3)`,
    [webhookId, IN_FLIGHT],
  );
  await bed.pool.query("analyze webhook_deliveries");
});

afterAll(async () => {
  await bed.stop();
});

/** The claim statement exactly as the delivery loop sends it. */
async function claimStatement(limits: { limit: number; perWebhookLimit: number }): Promise<{ text: string; values: unknown[] }> {
  let sent: { text: string; values: unknown[] } | undefined;
  const recording: Executor = {
    query: (config) => {
      sent = { text: config.text, values: config.values ?? [] };
      return Promise.resolve({ rows: [] }) as never;
    },
  };
  await webhookDeliveries.claimDue(recording, { ...limits, leaseMs: 30_000 });
  return sent!;
}

describe("claiming webhook deliveries behind a backlog", () => {
  it("when 3,000 deliveries of one subscription are pending and 8 are in flight, then a claim reads a handful of them and takes the next delivery of 8 more aggregates", async () => {
    const statement = await claimStatement({ limit: 64, perWebhookLimit: 2 * IN_FLIGHT });
    const client = await bed.pool.connect();
    let nodes: PlanNode[];
    let claimed: Array<{ aggregate_id: string; event_type: string }>;
    try {
      await client.query("begin");
      const plan = await client.query<{ "QUERY PLAN": Array<{ Plan: PlanNode }> }>(`explain (analyze, format json) ${statement.text}`, statement.values);
      nodes = planNodes(plan.rows[0]!["QUERY PLAN"][0]!.Plan);
      ({ rows: claimed } = await client.query<{ aggregate_id: string; event_type: string }>(
        `select d.aggregate_id, e.event_type from webhook_deliveries d join events e on e.id = d.event_id
          where d.webhook_id = $1 and d.lease_expires_at > now() order by d.event_position`,
        [webhookId],
      ));
    } finally {
      await client.query("rollback");
      client.release();
    }

    // Every read of webhook_deliveries, over all its loops, touched a bounded number of rows.
    const deliveryReads = nodes.filter((node) => node["Relation Name"] === "webhook_deliveries" || node["Index Name"]?.startsWith("webhook_deliveries_"));
    const rowsRead = deliveryReads.reduce(
      (sum, node) => sum + ((node["Actual Rows"] ?? 0) + (node["Rows Removed by Filter"] ?? 0)) * (node["Actual Loops"] ?? 1),
      0,
    );
    expect(nodes.map((node) => node["Node Type"])).not.toContain("Seq Scan");
    expect(rowsRead).toBeLessThan(200);
    // 8 in flight and 8 more: the first delivery of each of the first 16 aggregates, nothing later.
    expect(claimed).toHaveLength(2 * IN_FLIGHT);
    expect(new Set(claimed.map((row) => row.aggregate_id)).size).toBe(2 * IN_FLIGHT);
    expect(claimed.every((row) => row.event_type === "job.created")).toBe(true);
  });
});
