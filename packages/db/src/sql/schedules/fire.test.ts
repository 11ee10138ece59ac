/**
 * A fire's trace (CONTRACT §6.20): a fire pass whose fires carry a trace context stores it with
 * each job it creates, through its own named statement; a pass without (tracing off) sends the
 * statement it always sent and the jobs have none.
 */
import { beforeEach, describe, expect, it } from "vitest";
import { withTransaction } from "../../executor";
import { stageAutomation, useTestDatabase, type StagedAutomation } from "../../test-kit";
import * as schedules from "./index";

const hub = useTestDatabase();
let staged: StagedAutomation;

beforeEach(async () => {
  staged = await stageAutomation(hub(), {});
});

async function dueSchedule(): Promise<string> {
  const schedule = await withTransaction(hub().pool, (tx) =>
    schedules.insert(tx, {
      automationId: staged.automationId,
      key: null,
      cron: "* * * * *",
      timezone: "UTC",
      context: {},
      priority: 0,
      enabled: true,
      overlap: "allow",
      description: "",
      nextRunAt: new Date(Date.now() - 60_000),
    }),
  );
  return schedule.id;
}

/** Fires every due schedule once, each fire with `traceOf(scheduleId)`; the created jobs' stored trace columns, and the statements' names. */
async function firePass(traceOf: (scheduleId: string) => schedules.ScheduleFire["trace"]) {
  const names: string[] = [];
  const pool = hub().pool;
  // The pass on one connection whose statements' names are recorded.
  const client = await pool.connect();
  const query = client.query.bind(client) as (...args: unknown[]) => unknown;
  client.query = ((config: unknown, ...rest: unknown[]) => {
    const name = (config as { name?: string } | null)?.name;
    if (name) names.push(name);
    return query(config, ...rest);
  }) as typeof client.query;
  try {
    const outcome = await schedules.fireDue(client, 100, (due) =>
      due.map((held) => ({
        scheduleId: held.id,
        fires: [{ fireTime: held.nextRunAt, outcome: "created" as const, trace: traceOf(held.id) }],
        nextRunAt: null,
      })),
    );
    const { rows } = await pool.query<{ schedule_id: string; traceparent: string | null; tracestate: string | null }>(
      "select schedule_id, traceparent, tracestate from jobs where id = any($1::uuid[])",
      [outcome.created.map((job) => job.id)],
    );
    return { jobs: new Map(rows.map((row) => [row.schedule_id, row])), names };
  } finally {
    client.release();
  }
}

describe("a schedule fire's trace", () => {
  it("when the fires carry trace contexts, then each job stores its fire's, a fire without one stores none", async () => {
    const [traced, untraced] = [await dueSchedule(), await dueSchedule()];
    const traceparent = "00-0af7651916cd43dd8448eb211c80319c-b7ad6b7169203331-01";
    const { jobs, names } = await firePass((id) => (id === traced ? { traceparent, tracestate: "vendor=1" } : undefined));
    expect(jobs.get(traced)).toMatchObject({ traceparent, tracestate: "vendor=1" });
    expect(jobs.get(untraced)).toMatchObject({ traceparent: null, tracestate: null });
    expect(names).toContain("schedules_record_fires_traced");
  });

  it("when no fire carries a trace (tracing off), then the pass sends the untraced statement and the job has no trace", async () => {
    const scheduleId = await dueSchedule();
    const { jobs, names } = await firePass(() => undefined);
    expect(jobs.get(scheduleId)).toMatchObject({ traceparent: null, tracestate: null });
    expect(names).toContain("schedules_record_fires");
    expect(names).not.toContain("schedules_record_fires_traced");
  });
});
