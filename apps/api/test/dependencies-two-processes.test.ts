/**
 * Exactly once across API processes (CONTRACT §6.16): two dependencies completed at the same
 * instant, one through each of two API processes on the same PostgreSQL and Redis, make their
 * dependent due once — never twice, never not at all — and it is handed out once. Repeated.
 */
import { createLogger } from "@hub/shared";
import { sql } from "drizzle-orm";
import { describe, expect, it } from "vitest";
import { startApi } from "../src/app";
import { HubClient } from "./harness";
import { claim, createAutomationWithWorker, useHubWithDispatcher } from "./job-fixtures";

const hub = useHubWithDispatcher();
const ROUNDS = 20;

describe("two API processes", () => {
  it(`when two dependencies complete at the same instant on two API processes, then the dependent is released and handed out once (${ROUNDS} rounds)`, async () => {
    const second = await startApi({ ...hub.env, PORT: 0 }, createLogger("api-second", "silent"));
    try {
      const other = new HubClient(second.url);
      const exports = await createAutomationWithWorker(hub, { max_concurrent_jobs: 2 });
      const consolidate = await createAutomationWithWorker(hub);
      for (let round = 0; round < ROUNDS; round += 1) {
        const created = await hub.client.post<{ ids: string[] }>(
          "/jobs/batch",
          {
            jobs: [
              { automation_id: exports.automationId },
              { automation_id: exports.automationId },
              { automation_id: consolidate.automationId, depends_on: [0, 1] },
            ],
          },
          { token: hub.adminToken },
        );
        const [a, b, dependent] = created.body.ids as [string, string, string];
        const claimed = await hub.client.post<{ jobs: Array<{ id: string }> }>(
          "/jobs/claim-batch",
          { max_jobs: 2, wait_seconds: 5 },
          { workerKey: exports.workerKey },
        );
        expect(claimed.body.jobs.map((job) => job.id).sort()).toEqual([a, b].sort());
        const completions = await Promise.all([
          hub.client.post(`/jobs/${a}/complete`, { result: {} }, { workerKey: exports.workerKey }),
          other.post(`/jobs/${b}/complete`, { result: {} }, { workerKey: exports.workerKey }),
        ]);
        expect(completions.map((answer) => answer.status)).toEqual([200, 200]);
        const handedOut = await claim(hub, consolidate.workerKey, 5);
        expect(handedOut.body.id).toBe(dependent);
        // Once: its counter stopped at 0 and it started once.
        const { rows } = await hub.api.ctx.database.db.execute<{ pending_dependencies: number; started: number }>(sql`
          select pending_dependencies, (select count(*)::int from events where aggregate_id = ${dependent} and event_type = 'job.started') as started
          from jobs where id = ${dependent}`);
        expect(rows).toEqual([{ pending_dependencies: 0, started: 1 }]);
        expect((await hub.client.post(`/jobs/${dependent}/complete`, { result: {} }, { workerKey: consolidate.workerKey })).status).toBe(200);
      }
    } finally {
      await second.stop();
    }
  });
});
