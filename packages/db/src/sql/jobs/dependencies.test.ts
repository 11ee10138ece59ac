/**
 * Job dependencies against the real database (CONTRACT §6.16): jobs created with depends_on are held
 * until every dependency finished, released exactly once in the finishing transaction however many
 * dependencies finish at once on however many connections, and cancelled through any depth when a
 * dependency fails under "cancel".
 */
import { describe, expect, it } from "vitest";
import { jobs, retention, withTransaction } from "../../index";
import { EVERYWHERE } from "../../reach";
import { catalogueCheckedEvents, stageAutomation, useTestDatabase, type StagedAutomation } from "../../test-kit";

const hub = useTestDatabase();
const LEASE_SECONDS = 60;

async function flow(
  subject: StagedAutomation,
  items: Array<{ dependsOn?: Array<string | number>; onDependencyFailure?: "cancel" | "run" }>,
): Promise<string[]> {
  const created = await jobs.insertFlow(
    hub().pool,
    EVERYWHERE,
    subject.userId,
    items.map((item) => ({
      automationId: subject.automationId,
      context: {},
      dependsOn: item.dependsOn ?? [],
      onDependencyFailure: item.onDependencyFailure ?? "cancel",
    })),
  );
  if (created.kind !== "created") throw new Error(`flow not created: ${JSON.stringify(created)}`);
  return created.jobs.map((job) => job.id);
}

/** Claims every claimable job of the automation; returns their ids. */
async function claimAll(subject: StagedAutomation): Promise<string[]> {
  const claim = await jobs.claim(hub().pool, {
    automationId: subject.automationId,
    workerId: subject.worker.id,
    maxJobs: 100,
    leaseSeconds: LEASE_SECONDS,
    candidateIds: [],
  });
  return claim.kind === "claimed" ? claim.jobs.map((job) => job.id) : [];
}

async function stored(id: string) {
  const job = await jobs.find(hub().pool, EVERYWHERE, id);
  if (!job) throw new Error(`no job ${id}`);
  return job;
}

describe("job dependencies", () => {
  it("when a job depends on two running jobs, then it is held with 2 pending, released by the second completion only, and claimable then", async () => {
    const subject = await stageAutomation(hub(), { maxConcurrentJobs: 10 });
    const [a, b] = await flow(subject, [{}, {}]);
    expect((await claimAll(subject)).sort()).toEqual([a, b].sort());
    const [dependent] = await flow(subject, [{ dependsOn: [a!, b!] }]);
    expect(await stored(dependent!)).toMatchObject({ status: "held", pendingDependencies: 2, dependsOn: [a, b] });
    expect((await catalogueCheckedEvents(hub(), dependent!))[0]!.payload).toMatchObject({ depends_on: [a, b] });

    await jobs.complete(hub().pool, a!, subject.worker, {});
    expect(await stored(dependent!)).toMatchObject({ status: "held", pendingDependencies: 1 });
    expect(await claimAll(subject)).toEqual([]);
    await jobs.complete(hub().pool, b!, subject.worker, {});
    expect(await stored(dependent!)).toMatchObject({ status: "queued", pendingDependencies: 0 });
    expect(await jobs.hold.queuedDependentsOf(hub().pool, [b!])).toEqual([expect.objectContaining({ id: dependent })]);
    expect(await claimAll(subject)).toEqual([dependent]);
  });

  it("when two dependencies complete at the same instant on two connections, then the dependent is released exactly once (50 rounds)", async () => {
    const subject = await stageAutomation(hub(), { maxConcurrentJobs: 200 });
    for (let round = 0; round < 50; round += 1) {
      const [a, b] = await flow(subject, [{}, {}]);
      await claimAll(subject);
      const [dependent] = await flow(subject, [{ dependsOn: [a!, b!] }]);
      // Two statements at once on the pool run on two connections, as two API processes would.
      await Promise.all([jobs.complete(hub().pool, a!, subject.worker, {}), jobs.complete(hub().pool, b!, subject.worker, {})]);
      expect(await stored(dependent!)).toMatchObject({ status: "queued", pendingDependencies: 0 });
      expect(await claimAll(subject)).toEqual([dependent]);
      await jobs.complete(hub().pool, dependent!, subject.worker, {});
    }
  });

  it("when a dependency fails for good, then its dependents are cancelled three levels deep, each naming the job of its own depends_on, and a run dependent is released", async () => {
    const subject = await stageAutomation(hub(), { maxConcurrentJobs: 10, maxAttempts: 1 });
    const [root, level1, level2, level3, runs] = await flow(subject, [
      {},
      { dependsOn: [0] },
      { dependsOn: [1] },
      { dependsOn: [2] },
      { dependsOn: [1], onDependencyFailure: "run" },
    ]);
    expect(await claimAll(subject)).toEqual([root]);
    await jobs.fail(hub().pool, root!, subject.worker, { error: "broken", retryable: false, maxAttempts: 1 });

    for (const [job, cause] of [
      [level1, root],
      [level2, level1],
      [level3, level2],
    ] as const) {
      expect(await stored(job!)).toMatchObject({ status: "cancelled" });
      const events = await catalogueCheckedEvents(hub(), job!);
      expect(events.at(-1)).toMatchObject({
        eventType: "job.cancelled",
        actorId: null,
        payload: { automation_id: subject.automationId, reason: "dependency_failed", dependency_id: cause },
      });
    }
    expect(await stored(runs!)).toMatchObject({ status: "queued", pendingDependencies: 0 });
  });

  it("when two failures cascade into each other's dependents at once, then both finish: the cascade locks its whole dependent set first, in id order", async () => {
    // z ← b; x ← a, z; y ← x, b. Failing a cancels x, then y; failing b cancels z and y, then x. A cascade that locked
    // wave by wave held x waiting for y while the other held y waiting for x: a deadlock, one of the two failures lost.
    const subject = await stageAutomation(hub(), { maxConcurrentJobs: 10, maxAttempts: 1 });
    const [a, b] = await flow(subject, [{}, {}]);
    expect((await claimAll(subject)).sort()).toEqual([a, b].sort());
    const [z, x, y] = await flow(subject, [{ dependsOn: [b!] }, { dependsOn: [a!, 0] }, { dependsOn: [1, b!] }]);

    // Order the two cascades deterministically: a third session holds x, so a's cascade queues for x first, then b's.
    const blocker = await hub().pool.connect();
    const waitingForLocks = async (count: number) => {
      for (let poll = 0; poll < 200; poll += 1) {
        const { rows } = await hub().pool.query<{ n: number }>(
          "select count(*)::int as n from pg_stat_activity where datname = current_database() and wait_event_type = 'Lock'",
        );
        if (rows[0]!.n >= count) return;
        await new Promise((resolve) => setTimeout(resolve, 25));
      }
      throw new Error(`fewer than ${count} sessions waiting for a lock`);
    };
    const failure = { error: "broken", retryable: false, maxAttempts: 1 };
    try {
      await blocker.query("begin");
      await blocker.query("select 1 from jobs where id = $1 for update", [x]);
      const failA = jobs.fail(hub().pool, a!, subject.worker, failure);
      await waitingForLocks(1);
      const failB = jobs.fail(hub().pool, b!, subject.worker, failure);
      await waitingForLocks(2);
      await blocker.query("commit");
      const outcomes = await Promise.allSettled([failA, failB]);
      expect(outcomes.map((outcome) => (outcome.status === "fulfilled" ? "ok" : String(outcome.reason)))).toEqual(["ok", "ok"]);
    } finally {
      blocker.release();
    }
    for (const id of [a, b]) expect(await stored(id!)).toMatchObject({ status: "failed" });
    for (const id of [x, y, z]) {
      expect(await stored(id!)).toMatchObject({ status: "cancelled" });
      const cancellations = (await catalogueCheckedEvents(hub(), id!)).filter((event) => event.eventType === "job.cancelled");
      expect(cancellations).toHaveLength(1);
    }
  });

  it("when a user cancels a dependency, then the cascade's events carry that user as actor", async () => {
    const subject = await stageAutomation(hub(), { maxConcurrentJobs: 10 });
    const [root, dependent] = await flow(subject, [{}, { dependsOn: [0] }]);
    // In a transaction, as POST /jobs/{id}/cancel runs it.
    await withTransaction(hub().pool, (tx) => jobs.cancel(tx, root!, subject.userId));
    expect((await catalogueCheckedEvents(hub(), dependent!)).at(-1)).toMatchObject({
      actorId: subject.userId,
      payload: { reason: "dependency_failed", dependency_id: root },
    });
  });

  it("when one job has 1,000 dependents, then its completion releases all of them in the one transaction", async () => {
    const subject = await stageAutomation(hub(), { maxConcurrentJobs: 10 });
    const [root] = await flow(subject, [{}]);
    await claimAll(subject);
    for (let batch = 0; batch < 2; batch += 1)
      await flow(
        subject,
        Array.from({ length: 500 }, () => ({ dependsOn: [root!] })),
      );
    await jobs.complete(hub().pool, root!, subject.worker, {});
    expect(await jobs.hold.queuedDependentsOf(hub().pool, [root!])).toHaveLength(1000);
  });

  it("when one statement completes four dependencies of a fan-in, then the fan-in is rewritten once, counting all four", async () => {
    const subject = await stageAutomation(hub(), { maxConcurrentJobs: 10 });
    const roots = await flow(subject, [{}, {}, {}, {}, {}]);
    const [fanIn] = await flow(subject, [{ dependsOn: roots }]);
    expect(await claimAll(subject)).toHaveLength(5);
    // Row versions the transaction wrote into jobs (the backend's pending counter: read it before and after).
    const rowsUpdated = await withTransaction(hub().pool, async (tx) => {
      const updatedSoFar = async () =>
        (await tx.query<{ n: number }>({ text: "select pg_stat_get_xact_tuples_updated('jobs'::regclass)::int as n" })).rows[0]!.n;
      const before = await updatedSoFar();
      const verdicts = await jobs.completeBatch(
        tx,
        subject.worker,
        roots.slice(0, 4).map((id) => ({ id, result: {} })),
      );
      expect(verdicts.map((verdict) => verdict.refusal)).toEqual([null, null, null, null]);
      return (await updatedSoFar()) - before;
    });
    // The four completions, and one version of the fan-in (one wave per finished row wrote four).
    expect(rowsUpdated).toBe(5);
    expect(await stored(fanIn!)).toMatchObject({ status: "held", pendingDependencies: 1 });
    await jobs.complete(hub().pool, roots[4]!, subject.worker, {});
    expect(await stored(fanIn!)).toMatchObject({ status: "queued", pendingDependencies: 0 });
  });

  it("when one statement finishes dependencies completed, failed and cancelled at once, then each dependent counts each once and a cancel names its first failed one", async () => {
    const subject = await stageAutomation(hub(), { maxConcurrentJobs: 10 });
    const [a, b, c, d] = await flow(subject, [{}, {}, {}, {}]);
    const [cancels, runs, completedOnly, untouched] = await flow(subject, [
      { dependsOn: [a!, c!, b!] },
      { dependsOn: [a!, b!, d!], onDependencyFailure: "run" },
      { dependsOn: [a!] },
      { dependsOn: [d!] },
    ]);
    // One UPDATE, as a lease sweep or a bulk change makes: a completed, b failed, c cancelled, d left running.
    await claimAll(subject);
    await hub().pool.query(
      `update jobs set status = case id when $1 then 'completed' when $2 then 'failed' else 'cancelled' end, finished_at = now()
       where id = any(array[$1, $2, $3]::uuid[])`,
      [a, b, c],
    );
    expect(await stored(cancels!)).toMatchObject({ status: "cancelled" });
    const cancellations = (await catalogueCheckedEvents(hub(), cancels!)).filter((event) => event.eventType === "job.cancelled");
    // Its own depends_on is [a, c, b]: c is the first of them that ended failed or cancelled.
    expect(cancellations).toEqual([expect.objectContaining({ payload: expect.objectContaining({ reason: "dependency_failed", dependency_id: c }) })]);
    expect(await stored(runs!)).toMatchObject({ status: "held", pendingDependencies: 1 });
    expect(await stored(completedOnly!)).toMatchObject({ status: "queued", pendingDependencies: 0 });
    expect(await stored(untouched!)).toMatchObject({ status: "held", pendingDependencies: 1 });
    await jobs.complete(hub().pool, d!, subject.worker, {});
    expect(await stored(runs!)).toMatchObject({ status: "queued", pendingDependencies: 0 });
    expect(await stored(untouched!)).toMatchObject({ status: "queued", pendingDependencies: 0 });
  });

  it("when one statement finishes 1,250 jobs with dependents, then past the 1,000 it notes each has a wave of its own and every dependent counts each once", async () => {
    const subject = await stageAutomation(hub(), { maxConcurrentJobs: 10 });
    const roots: string[] = [];
    for (let part = 0; part < 5; part += 1)
      roots.push(
        ...(await flow(
          subject,
          Array.from({ length: 250 }, () => ({})),
        )),
      );
    const single: string[] = [];
    for (let part = 0; part < 5; part += 1)
      single.push(
        ...(await flow(
          subject,
          roots.slice(part * 250, (part + 1) * 250).map((root) => ({ dependsOn: [root] })),
        )),
      );
    // Roots from both ends of the statement's rows: some noted, some past the 1,000.
    const [spread] = await flow(subject, [{ dependsOn: [roots[0]!, roots[600]!, roots[1100]!, roots[1249]!] }]);
    await hub().pool.query("update jobs set status = 'completed', finished_at = now() where id = any($1::uuid[])", [roots]);
    const { rows } = await hub().pool.query<{ status: string; pending: number; n: number }>(
      "select status, pending_dependencies as pending, count(*)::int as n from jobs where id = any($1::uuid[]) group by 1, 2",
      [[...single, spread!]],
    );
    expect(rows).toEqual([{ status: "queued", pending: 0, n: 1251 }]);
  });

  it("when a dependency is unknown or already failed, then nothing is created and the refusal names it", async () => {
    const subject = await stageAutomation(hub(), { maxConcurrentJobs: 10, maxAttempts: 1 });
    const [failed] = await flow(subject, [{}]);
    await claimAll(subject);
    await jobs.fail(hub().pool, failed!, subject.worker, { error: "broken", retryable: false, maxAttempts: 1 });
    const unknown = "00000000-0000-4000-8000-000000000000";
    const item = (dependsOn: string[], onDependencyFailure: "cancel" | "run" = "cancel") => ({
      automationId: subject.automationId,
      context: {},
      dependsOn,
      onDependencyFailure,
    });

    expect(await jobs.insertFlow(hub().pool, EVERYWHERE, subject.userId, [item([failed!, unknown])])).toMatchObject({
      kind: "refused",
      dependencies: { unknown: [{ item: 0, k: 1 }], failed: { id: failed, status: "failed" } },
    });
    const runs = await jobs.insertFlow(hub().pool, EVERYWHERE, subject.userId, [item([failed!], "run")]);
    expect(runs).toMatchObject({ kind: "created" });
    // A finished dependency does not count: the job is queued at once.
    expect(await stored(runs.kind === "created" ? runs.jobs[0]!.id : "")).toMatchObject({ status: "queued", pendingDependencies: 0 });
  });

  it("when a finished dependency is past the retention period, then it stays while its dependent is unfinished, and goes with it after", async () => {
    const subject = await stageAutomation(hub(), { maxConcurrentJobs: 10 });
    const [dependency, dependent] = await flow(subject, [{}, { dependsOn: [0] }]);
    await claimAll(subject);
    await jobs.complete(hub().pool, dependency!, subject.worker, {});
    // Old enough, its events published: only the dependent keeps it.
    const age = async () => {
      await hub().pool.query("update jobs set finished_at = now() - interval '40 days' where id = any($1) and finished_at is not null", [
        [dependency, dependent],
      ]);
      await hub().pool.query("update events set dispatched_at = now() where aggregate_id = any($1)", [[dependency, dependent]]);
    };
    await age();
    await retention.removeExpiredJobs(hub().pool, { retentionDays: 30, batchSize: 1000 });
    expect(await jobs.find(hub().pool, EVERYWHERE, dependency!)).toMatchObject({ status: "completed" });

    expect(await claimAll(subject)).toEqual([dependent]);
    await jobs.complete(hub().pool, dependent!, subject.worker, {});
    await age();
    await retention.removeExpiredJobs(hub().pool, { retentionDays: 30, batchSize: 1000 });
    expect(await jobs.find(hub().pool, EVERYWHERE, dependency!)).toBeUndefined();
    expect(await jobs.find(hub().pool, EVERYWHERE, dependent!)).toBeUndefined();
  });
});
