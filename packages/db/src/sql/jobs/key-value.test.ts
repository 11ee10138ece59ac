/**
 * A job's key value (CONTRACT §6.13, migration 0019): every statement that inserts jobs sets
 * `key_value` from the automation row it holds FOR KEY SHARE, and a key change (the PUT's steps:
 * the row FOR UPDATE, the new key, `jobs.rekey`) cannot slip between that read and the insert's
 * commit, whichever of the two takes the row first. Inserts that leave the column out (builds
 * before 0019, fixtures) get the value from the trigger.
 */
import { EVERYWHERE } from "../../reach";
import type pg from "pg";
import { withTransaction, type Executor } from "../../executor";
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import { stageAutomation, useTestDatabase, type StagedAutomation } from "../../test-kit";
import * as automations from "../automations";
import * as schedules from "../schedules";
import { insert, insertBatch } from "./insert";
import { rekey } from "./rekey";
import { retry, retryWithContext } from "./retry";
import { seed } from "./seed";

const hub = useTestDatabase();
let staged: StagedAutomation;

beforeEach(async () => {
  staged = await stageAutomation(hub(), {
    parameters: [
      { name: "customer", description: "" },
      { name: "region", description: "" },
    ],
  });
  await setKey("customer");
});

async function setKey(key: string | null): Promise<void> {
  await hub().pool.query("update automations set concurrency_key = $2, max_concurrent_per_key = $3 where id = $1", [
    staged.automationId,
    key,
    key === null ? null : 2,
  ]);
}

async function keyValues(ids: readonly string[]): Promise<unknown[]> {
  const { rows } = await hub().pool.query<{ id: string; key_value: unknown }>("select id, key_value from jobs where id = any($1::uuid[])", [ids]);
  const byId = new Map(rows.map((row) => [row.id, row.key_value]));
  return ids.map((id) => byId.get(id));
}

/** A failed job of the automation, to retry (no key value: it is finished, nothing counts it). */
async function failedJob(context: Record<string, unknown>): Promise<string> {
  const { rows } = await hub().pool.query<{ id: string }>(
    "insert into jobs (automation_id, context, status, attempts, finished_at, key_value) values ($1, $2, 'failed', 1, now(), null) returning id",
    [staged.automationId, context],
  );
  return rows[0]!.id;
}

/** A due schedule of the automation with `context`, to fire. */
async function dueSchedule(context: Record<string, unknown>): Promise<string> {
  const schedule = await withTransaction(hub().pool, (tx) =>
    schedules.insert(tx, {
      automationId: staged.automationId,
      key: null,
      cron: "* * * * *",
      timezone: "UTC",
      context,
      priority: 0,
      enabled: true,
      overlap: "allow",
      description: "",
      nextRunAt: new Date(Date.now() - 60_000),
    }),
  );
  return schedule.id;
}

/** A fire pass that fires `scheduleId` once (and moves any other due schedule on); `whileHeld` is called while the pass holds the automation. Its job's id. */
async function fire(scheduleId: string, whileHeld: () => void = () => {}): Promise<string> {
  const outcome = await schedules.fireDue(hub().pool, 100, (due) => {
    whileHeld();
    return due.map((held) => ({
      scheduleId: held.id,
      fires: held.id === scheduleId ? [{ fireTime: held.nextRunAt, outcome: "created" as const }] : [],
      nextRunAt: null,
    }));
  });
  return outcome.created.find((job) => job.scheduleId === scheduleId)!.id;
}

/**
 * Each statement that inserts jobs: `stage` arranges what it needs (a failed job to retry…) and
 * returns the insert itself, which creates one job with `context` through `db` and returns its id.
 */
const insertPaths: Record<string, (context: Record<string, unknown>) => Promise<(db: Executor) => Promise<string>>> = {
  "POST /jobs": async (context) => async (db) => {
    const outcome = await insert(db, EVERYWHERE, staged.userId, { automationId: staged.automationId, context });
    if (outcome.kind !== "created") throw new Error(outcome.kind);
    return outcome.jobs[0]!.id;
  },
  "POST /jobs/batch": async (context) => async (db) => {
    const outcome = await insertBatch(db, EVERYWHERE, staged.userId, [{ automationId: staged.automationId, context }]);
    if (outcome.kind !== "created") throw new Error(outcome.kind);
    return outcome.jobs[0]!.id;
  },
  "a retry": async (context) => {
    const source = await failedJob(context);
    return async (db) => (await retry(db, staged.userId, [source]))[0]!.id;
  },
  "a retry with a new context": async (context) => {
    const source = await failedJob({});
    return async (db) => {
      const outcome = await retryWithContext(db, staged.userId, source, context);
      if (outcome.kind !== "created") throw new Error(outcome.kind);
      return outcome.job.id;
    };
  },
  "the seed (no key_value given: the trigger's)": async (context) => async (db) => {
    await seed(db, staged.userId, [{ automationId: staged.automationId, context, availableAt: new Date() }]);
    const { rows } = await db.query<{ id: string }>({
      text: "select id from jobs where automation_id = $1 order by seq desc limit 1",
      values: [staged.automationId],
    });
    return rows[0]!.id;
  },
  "a schedule's fire": async (context) => {
    const scheduleId = await dueSchedule(context);
    return () => fire(scheduleId);
  },
};

describe("the key value of a new job", () => {
  it.each(Object.keys(insertPaths))(
    "when %s creates jobs, then each holds its context's value of the automation's key (waiting), SQL NULL without a key",
    async (path) => {
      const create = async (context: Record<string, unknown>) => (await insertPaths[path]!(context))(hub().pool);
      const keyed = await create({ customer: "acme", region: "eu" });
      await setKey(null);
      const unkeyed = await create({ customer: "acme", region: "eu" });
      expect(await keyValues([keyed, unkeyed])).toEqual(["acme", null]);
      const { rows } = await hub().pool.query("select key_value, waiting from job_key_states where automation_id = $1", [staged.automationId]);
      expect(rows).toEqual([{ key_value: "acme", waiting: true }]);
    },
  );

  it("when a direct insert leaves key_value out (a build before migration 0019), then the trigger computes it, JSON null for a context without the key", async () => {
    const { rows } = await hub().pool.query<{ key_value: unknown }>(
      "insert into jobs (automation_id, context) values ($1, $2), ($1, '{}') returning key_value",
      [staged.automationId, { customer: "globex" }],
    );
    expect(rows.map((row) => row.key_value)).toEqual(["globex", null]);
    const { rows: states } = await hub().pool.query("select key_value, waiting from job_key_states where automation_id = $1 order by key_value::text", [
      staged.automationId,
    ]);
    expect(states).toEqual([
      { key_value: "globex", waiting: true },
      { key_value: null, waiting: true },
    ]);
  });
});

describe("a key change racing a job insert", () => {
  let held: pg.PoolClient | undefined;
  afterEach(async () => {
    await held?.query("rollback").catch(() => undefined);
    held?.release();
    held = undefined;
  });

  /**
   * A PUT's key change, in its order (automations.service.ts): the row FOR UPDATE, the new key, the
   * jobs rewritten. `locked` resolves once it holds the row; it commits when `gate` resolves.
   */
  function changeKey(key: string, gate: Promise<void> = Promise.resolve()): { locked: Promise<void>; done: Promise<void> } {
    let onLocked = () => {};
    const locked = new Promise<void>((resolve) => (onLocked = resolve));
    const done = withTransaction(hub().pool, async (tx) => {
      await automations.lock(tx, EVERYWHERE, staged.automationId, "update");
      onLocked();
      await automations.update(tx, staged.automationId, { concurrencyKey: key });
      await rekey(tx, staged.automationId, key);
      await gate;
    });
    return { locked, done };
  }

  /** Resolves once a session of the test database waits for a lock (no clock involved). */
  async function someoneWaitsForALock(): Promise<void> {
    for (;;) {
      const { rows } = await hub().pool.query<{ waiting: number }>(
        "select count(*)::int as waiting from pg_stat_activity where datname = current_database() and wait_event_type = 'Lock'",
      );
      if (rows[0]!.waiting > 0) return;
      await new Promise((resolve) => setTimeout(resolve, 20));
    }
  }

  const statements = ["POST /jobs", "POST /jobs/batch", "a retry", "a retry with a new context"];

  it.each(statements)("when %s holds the automation first, then the key change waits for its commit and rewrites its job", async (path) => {
    const insertJob = await insertPaths[path]!({ customer: "acme", region: "eu" });
    held = await hub().pool.connect();
    await held.query("begin");
    const id = await insertJob(held);
    const change = changeKey("region");
    await someoneWaitsForALock();
    await held.query("commit");
    await change.done;
    expect(await keyValues([id])).toEqual(["eu"]);
  });

  it.each(statements)("when a key change holds the automation first, then %s waits and takes the new key", async (path) => {
    const insertJob = await insertPaths[path]!({ customer: "acme", region: "eu" });
    let release = () => {};
    const change = changeKey("region", new Promise<void>((resolve) => (release = resolve)));
    await change.locked;
    const inserted = insertJob(hub().pool);
    await someoneWaitsForALock();
    release();
    await change.done;
    expect(await keyValues([await inserted])).toEqual(["eu"]);
  });

  it("when a key change comes while a schedule's fire pass holds the automation, then the fired job ends under the new key", async () => {
    const scheduleId = await dueSchedule({ customer: "acme", region: "eu" });
    let change: ReturnType<typeof changeKey> | undefined;
    const id = await fire(scheduleId, () => {
      change = changeKey("region");
    });
    await change!.done;
    expect(await keyValues([id])).toEqual(["eu"]);
  });
});
