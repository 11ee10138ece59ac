/**
 * System test of the missed-fire rule (CONTRACT §6.9) with the real dispatchers on a PostgreSQL
 * cluster of the test's own: PostgreSQL is stopped for several fire times and started again. A fire
 * not made within 5 s of its time is missed; on recovery only the latest missed fire is made, with
 * its own fire_time, and the fires after it follow as usual.
 */
import { describe, expect, it } from "vitest";
import { eventually, findPostgresBinDir, sleep } from "@hub/testing";
import { SYSTEM_TEST_TIMEOUT_MS } from "@hub/testing/vitest";
import { useSystemHub } from "./system-hub";

/** Longer than the 5 s grace, so that several fires are missed outright. */
const OUTAGE_MS = 9_000;
const EVERY_TWO_SECONDS = { cron: "*/2 * * * * *", overlap: "allow" };
const MISSED_AFTER_MS = 5_000;

interface MadeFire {
  fireTime: number;
  createdAt: number;
}

const postgresBinDir = findPostgresBinDir();
if (!postgresBinDir) process.stderr.write("schedules-outage: SKIPPED — PostgreSQL server binaries (initdb, pg_ctl) not found\n");

describe.skipIf(!postgresBinDir)("schedules across a PostgreSQL outage", () => {
  const system = useSystemHub({ privatePostgres: true, dispatchers: 2, env: { HUB_SCHEDULES_ALLOW_SECONDS: "true" } });

  it(
    "when PostgreSQL is stopped across several fire times, then only the latest missed fire is made and none is doubled",
    async () => {
      const hub = system();
      const { automationId } = await hub.createAutomationWithWorker();
      const created = await hub.client.post<{ id: string }>(`/automations/${automationId}/schedules`, EVERY_TWO_SECONDS, { token: hub.adminToken });
      expect(created.status).toBe(201);
      const scheduleId = created.body.id;
      const madeFires = async (): Promise<MadeFire[]> => {
        const { rows } = await hub.database.pool.query<{ fire_time: Date; created_at: Date }>(
          "select fire_time, created_at from jobs where schedule_id = $1 order by fire_time",
          [scheduleId],
        );
        return rows.map((row) => ({ fireTime: row.fire_time.getTime(), createdAt: row.created_at.getTime() }));
      };
      await eventually("two fires before the outage", madeFires, (fires) => fires.length >= 2);

      await hub.privatePostgres!.stopServer("fast");
      await sleep(OUTAGE_MS);
      await hub.privatePostgres!.startServer();
      const afterOutage = await eventually("a fire made after the outage", madeFires, (fires) =>
        fires.some((fire) => fire.createdAt - fire.fireTime > MISSED_AFTER_MS),
      );
      await eventually("two more fires on time", madeFires, (fires) => fires.length >= afterOutage.length + 2);
      const disabled = await hub.client.put(`/schedules/${scheduleId}`, { ...EVERY_TWO_SECONDS, enabled: false }, { token: hub.adminToken });
      expect(disabled.status).toBe(200);

      const made = await madeFires();
      const madeTimes = new Set(made.map((fire) => fire.fireTime));
      expect(madeTimes.size, "one job per fire").toBe(made.length);
      const expected: number[] = [];
      for (let time = made[0]!.fireTime; time <= made.at(-1)!.fireTime; time += 2_000) expected.push(time);
      const absent = expected.filter((time) => !madeTimes.has(time));
      const caughtUp = made.filter((fire) => fire.createdAt - fire.fireTime > MISSED_AFTER_MS);
      expect(absent.length, "fires missed during the outage").toBeGreaterThan(0);
      expect(caughtUp, "one catch-up fire for the outage").toHaveLength(1);
      // The fires left out are exactly those just before the catch-up: it stands for them…
      const catchUp = caughtUp[0]!;
      expect(absent.every((time) => time < catchUp.fireTime)).toBe(true);
      expect(expected.filter((time) => time > Math.min(...absent) && time < catchUp.fireTime && madeTimes.has(time))).toEqual([]);
      // …and it is the latest of them: the fire after it was not yet missed when it was made.
      expect(catchUp.fireTime + 2_000).toBeGreaterThanOrEqual(catchUp.createdAt - MISSED_AFTER_MS);
      expect(hub.processes.unexpectedExits()).toEqual([]);
      process.stderr.write(
        `schedules-outage: ${made.length} fires made, ${absent.length} missed and left out, ` +
          `the catch-up made ${catchUp.createdAt - catchUp.fireTime} ms after its fire time\n`,
      );
    },
    SYSTEM_TEST_TIMEOUT_MS,
  );
});
