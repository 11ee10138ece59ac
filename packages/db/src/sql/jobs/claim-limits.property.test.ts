/**
 * The claim's rules of CONTRACT §6.13 as properties, checked with fast-check against the real
 * PostgreSQL (`hub_claim_jobs_v4`, packages/db/functions/hub_claim_jobs_v4.sql):
 * - one claimer at a time: every claim starts exactly the jobs a model of the rules picks (limits
 *   per key and in all, fair sharing by the start counter, §6.8's order within a key value);
 * - several claimers at once, with completions between claims: no committed state ever runs more
 *   than `max_concurrent_per_key` jobs of one key value or `max_concurrent_jobs` in all, and, with a
 *   rate limit, no `count` + 1 starts fall within one period.
 * Run counts are modest (the suite shares two cores); every run uses an automation of its own.
 */
import { EVERYWHERE } from "../../reach";
import fc from "fast-check";
import { describe, expect, it } from "vitest";
import { stageAutomation, useTestDatabase } from "../../test-kit";
import { cancel } from "./cancel";
import { claim } from "./claim";
import { reschedule } from "./reschedule";

const hub = useTestDatabase();

/** A job of a scenario: its key value (null: its context lacks the key) and priority. */
interface ScenarioJob {
  key: string | null;
  priority: number;
}

interface Limits {
  maxConcurrentJobs: number;
  maxConcurrentPerKey: number;
  rateLimit?: { count: number; periodSeconds: number; perKey: boolean };
}

const KEY_VALUES = ["acme", "globex", "initech", "umbrella"];

const scenarioJob = fc.record({
  key: fc.oneof({ weight: 6, arbitrary: fc.constantFrom(...KEY_VALUES) }, { weight: 1, arbitrary: fc.constant(null) }),
  priority: fc.constantFrom(-1, 0, 0, 1),
});

/** An automation with a `customer` key and `limits`, and `jobs` queued in order in one statement (one available_at, seq in order). */
async function stage(limits: Limits, jobs: ScenarioJob[]): Promise<{ automationId: string; workerId: string; userId: string; ids: string[] }> {
  const { pool } = hub();
  const staged = await stageAutomation(hub(), { parameters: [{ name: "customer", description: "" }] });
  await pool.query(
    `update automations set max_concurrent_jobs = $2, concurrency_key = 'customer', max_concurrent_per_key = $3,
       rate_limit_count = $4, rate_limit_period_seconds = $5, rate_limit_per_key = $6 where id = $1`,
    [
      staged.automationId,
      limits.maxConcurrentJobs,
      limits.maxConcurrentPerKey,
      limits.rateLimit?.count ?? null,
      limits.rateLimit?.periodSeconds ?? null,
      limits.rateLimit?.perKey ?? false,
    ],
  );
  const { rows } = await pool.query<{ id: string }>(
    `insert into jobs (automation_id, context, priority)
     select $1, case when j.key is null then '{}'::jsonb else jsonb_build_object('customer', j.key) end, j.priority
     from rows from (jsonb_to_recordset($2::jsonb) as (key text, priority int)) with ordinality as j(key, priority, n) order by j.n
     returning id`,
    [staged.automationId, JSON.stringify(jobs)],
  );
  return { automationId: staged.automationId, workerId: staged.worker.id, userId: staged.userId, ids: rows.map((row) => row.id) };
}

const claimFor = (automationId: string, workerId: string, maxJobs: number) =>
  claim(hub().pool, { automationId, workerId, maxJobs, leaseSeconds: 60, candidateIds: [] });

async function complete(ids: string[]): Promise<void> {
  if (ids.length > 0) await hub().pool.query(`update jobs set status = 'completed', finished_at = now() where id = any($1::uuid[])`, [ids]);
}

/** The rules of §6.13 without a rate limit, over one automation's jobs (indexes into the scenario). */
class ClaimModel {
  private readonly queued: number[];
  private readonly running = new Set<number>();
  private readonly lastStart = new Map<string, number>();
  private starts = 0;

  constructor(
    private readonly jobs: ScenarioJob[],
    private readonly limits: Limits,
  ) {
    this.queued = jobs.map((_, index) => index);
  }

  /** A job queued after the others (last in claim order among its priority). */
  add(job: ScenarioJob): void {
    this.jobs.push(job);
    this.queued.push(this.jobs.length - 1);
  }

  private keyOf(index: number): string {
    return JSON.stringify(this.jobs[index]!.key);
  }

  private runningOf(key: string): number {
    return [...this.running].filter((index) => this.keyOf(index) === key).length;
  }

  /** The jobs one claim of `maxJobs` starts, in order. */
  claim(maxJobs: number): number[] {
    const started: number[] = [];
    while (started.length < maxJobs && this.running.size < this.limits.maxConcurrentJobs) {
      const heads = new Map<string, number>();
      for (const index of this.queued) {
        const key = this.keyOf(index);
        if (this.runningOf(key) >= this.limits.maxConcurrentPerKey) continue;
        const head = heads.get(key);
        if (head === undefined || this.jobs[index]!.priority > this.jobs[head]!.priority) heads.set(key, index);
      }
      const candidates = [...heads.entries()].sort(([keyA, a], [keyB, b]) => {
        const byPriority = this.jobs[b]!.priority - this.jobs[a]!.priority;
        if (byPriority !== 0) return byPriority;
        const lastA = this.lastStart.get(keyA) ?? -1;
        const lastB = this.lastStart.get(keyB) ?? -1;
        return lastA !== lastB ? lastA - lastB : a - b;
      });
      const pick = candidates[0];
      if (!pick) break;
      const [key, index] = pick;
      this.queued.splice(this.queued.indexOf(index), 1);
      this.running.add(index);
      this.lastStart.set(key, this.starts++);
      started.push(index);
    }
    return started;
  }

  complete(index: number): void {
    this.running.delete(index);
  }

  /** The queued job at a (wrapped) position, or undefined when none is queued. */
  queuedAt(position: number): number | undefined {
    return this.queued.length === 0 ? undefined : this.queued[position % this.queued.length];
  }

  cancel(index: number): void {
    this.queued.splice(this.queued.indexOf(index), 1);
  }

  /** A new priority for a queued job: its place in claim order moves, its available_at and seq stay. */
  reprioritise(index: number, priority: number): void {
    this.jobs[index] = { ...this.jobs[index]!, priority };
  }

  runningJobs(): number[] {
    return [...this.running];
  }
}

const limitsArbitrary = fc.record({ maxConcurrentJobs: fc.integer({ min: 1, max: 5 }), maxConcurrentPerKey: fc.integer({ min: 1, max: 3 }) });
/**
 * A step: a claim of up to n jobs, the completion of the running job at a (wrapped) position, a
 * new job (so values go idle and come back), or the cancel or new priority of a queued job at a
 * (wrapped) position (so a value's first job changes without an insert: the heads of hub_claim_jobs_v4.sql).
 */
const step = fc.oneof(
  { weight: 3, arbitrary: fc.record({ claim: fc.integer({ min: 1, max: 4 }) }) },
  { weight: 3, arbitrary: fc.record({ complete: fc.nat() }) },
  { weight: 1, arbitrary: fc.record({ add: scenarioJob }) },
  { weight: 1, arbitrary: fc.record({ cancel: fc.nat() }) },
  { weight: 1, arbitrary: fc.record({ reprioritise: fc.nat(), priority: fc.constantFrom(-1, 0, 1, 2) }) },
);

describe("hub_claim_jobs_v4 under §6.13", () => {
  it("when the values that started longest ago are all at their limit, then the walk passes over them to the next in line", async () => {
    // 40 values, 2 jobs each, one job per value running: every value at its limit of 1.
    const values = Array.from({ length: 40 }, (_, index) => `customer-${index}`);
    const { automationId, workerId, ids } = await stage(
      { maxConcurrentJobs: 100, maxConcurrentPerKey: 1 },
      [...values, ...values].map((key) => ({ key, priority: 0 })),
    );
    const first = await claimFor(automationId, workerId, 40);
    expect(first.kind === "claimed" ? first.jobs.map((job) => ids.indexOf(job.id)) : []).toEqual(values.map((_, index) => index));
    // The last five values to start finish; the 35 before them stay at their limit, and the walk passes over them.
    await complete(ids.slice(35, 40));
    const second = await claimFor(automationId, workerId, 10);
    expect(second.kind === "claimed" ? second.jobs.map((job) => ids.indexOf(job.id)) : []).toEqual([75, 76, 77, 78, 79]);
  });

  it("when one claimer claims and completes at random, then every claim starts exactly the jobs the rules pick, in that order", async () => {
    await fc.assert(
      fc.asyncProperty(
        limitsArbitrary,
        fc.array(scenarioJob, { minLength: 1, maxLength: 16 }),
        fc.array(step, { minLength: 1, maxLength: 24 }),
        async (limits, jobs, steps) => {
          const { automationId, workerId, userId, ids } = await stage(limits, jobs);
          const model = new ClaimModel([...jobs], limits);
          for (const next of steps) {
            if ("add" in next) {
              const { rows } = await hub().pool.query<{ id: string }>(`insert into jobs (automation_id, context, priority) values ($1, $2, $3) returning id`, [
                automationId,
                next.add.key === null ? {} : { customer: next.add.key },
                next.add.priority,
              ]);
              ids.push(rows[0]!.id);
              model.add(next.add);
            } else if ("cancel" in next) {
              const index = model.queuedAt(next.cancel);
              if (index === undefined) continue;
              expect(await cancel(hub().pool, ids[index]!, userId)).toMatchObject({ ok: true });
              model.cancel(index);
            } else if ("reprioritise" in next) {
              const index = model.queuedAt(next.reprioritise);
              if (index === undefined) continue;
              expect(await reschedule(hub().pool, EVERYWHERE, ids[index]!, { priority: next.priority }, { userId, mayRescheduleAnyJob: true })).toMatchObject({
                ok: true,
              });
              model.reprioritise(index, next.priority);
            } else if ("claim" in next) {
              const outcome = await claimFor(automationId, workerId, next.claim);
              const started = outcome.kind === "claimed" ? outcome.jobs.map((job) => ids.indexOf(job.id)) : [];
              expect(started).toEqual(model.claim(next.claim));
            } else {
              const running = model.runningJobs();
              if (running.length === 0) continue;
              const index = running[next.complete % running.length]!;
              model.complete(index);
              await complete([ids[index]!]);
            }
          }
        },
      ),
      { numRuns: 40 },
    );
  }, 120_000);

  it("when three claimers race with completions in between, then no committed state runs more than the per-key or the total limit", async () => {
    await fc.assert(
      fc.asyncProperty(
        limitsArbitrary,
        fc.array(scenarioJob, { minLength: 4, maxLength: 30 }),
        fc.array(fc.integer({ min: 1, max: 4 }), { minLength: 3, maxLength: 3 }),
        async (limits, jobs, batchSizes) => {
          const { automationId, workerId, ids } = await stage(limits, jobs);
          const violations: string[] = [];
          let done = false;
          const observe = async () => {
            while (!done) {
              const { rows } = await hub().pool.query<{ key: string | null; running: number }>(
                `select context ->> 'customer' as key, count(*)::int as running from jobs where automation_id = $1 and status = 'running' group by 1`,
                [automationId],
              );
              const total = rows.reduce((sum, row) => sum + row.running, 0);
              if (total > limits.maxConcurrentJobs) violations.push(`${total} running in all`);
              for (const row of rows) if (row.running > limits.maxConcurrentPerKey) violations.push(`${row.running} running for ${row.key}`);
            }
          };
          const claimer = async (maxJobs: number) => {
            for (let idle = 0; idle < 3;) {
              const outcome = await claimFor(automationId, workerId, maxJobs);
              if (outcome.kind === "claimed") {
                idle = 0;
                await complete(outcome.jobs.filter((_, index) => index % 2 === 0).map((job) => job.id));
                await complete(outcome.jobs.filter((_, index) => index % 2 === 1).map((job) => job.id));
              } else {
                idle += 1;
              }
            }
          };
          const observer = observe();
          await Promise.all(batchSizes.map(claimer));
          done = true;
          await observer;
          expect(violations).toEqual([]);
          const { rows } = await hub().pool.query<{ status: string; n: number }>(
            `select status, count(*)::int as n from jobs where id = any($1::uuid[]) group by status`,
            [ids],
          );
          expect(rows).toEqual([{ status: "completed", n: jobs.length }]);
        },
      ),
      { numRuns: 8 },
    );
  }, 120_000);

  it("when claimers race under a rate limit, then no period holds more than count starts, for the automation or per key value", async () => {
    await fc.assert(
      fc.asyncProperty(
        fc.record({
          maxConcurrentJobs: fc.integer({ min: 2, max: 6 }),
          maxConcurrentPerKey: fc.integer({ min: 1, max: 3 }),
          rateLimit: fc.record({ count: fc.integer({ min: 2, max: 5 }), periodSeconds: fc.constant(1), perKey: fc.boolean() }),
        }),
        fc.array(scenarioJob, { minLength: 4, maxLength: 12 }),
        async (limits, jobs) => {
          const { automationId, workerId, ids } = await stage(limits, jobs);
          const claimer = async (maxJobs: number) => {
            for (;;) {
              const outcome = await claimFor(automationId, workerId, maxJobs);
              if (outcome.kind === "claimed") await complete(outcome.jobs.map((job) => job.id));
              const { rows } = await hub().pool.query<{ n: number }>(`select count(*)::int as n from jobs where automation_id = $1 and status = 'queued'`, [
                automationId,
              ]);
              if (rows[0]!.n === 0) return;
              if (outcome.kind !== "claimed")
                await new Promise((resolve) => setTimeout(resolve, Math.min(outcome.kind === "blocked" ? (outcome.retryAfterMs ?? 20) : 20, 200)));
            }
          };
          await Promise.all([claimer(1), claimer(3)]);

          const { rows } = await hub().pool.query<{ key: string | null; started_at: Date }>(
            `select context ->> 'customer' as key, started_at from jobs where id = any($1::uuid[]) order by started_at`,
            [ids],
          );
          const groups = limits.rateLimit.perKey ? [...new Set(rows.map((row) => row.key))].map((key) => rows.filter((row) => row.key === key)) : [rows];
          const periodMs = limits.rateLimit.periodSeconds * 1000;
          for (const group of groups) {
            const times = group.map((row) => row.started_at.getTime());
            // Milliseconds on this side: PostgreSQL's microseconds may round a full period down by 1 ms.
            for (let i = 0; i + limits.rateLimit.count < times.length; i++)
              expect(times[i + limits.rateLimit.count]! - times[i]!).toBeGreaterThanOrEqual(periodMs - 1);
          }
        },
      ),
      { numRuns: 5 },
    );
  }, 120_000);
});
