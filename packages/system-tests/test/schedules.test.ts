/**
 * System tests of schedules (CONTRACT §6.9) with three dispatcher processes and no leader: a
 * schedule firing every second makes exactly one job per fire, and a dispatcher SIGKILLed in the
 * middle of a fire loses no fire and doubles none.
 */
import { readdirSync, readFileSync, readlinkSync } from "node:fs";
import { describe, expect, it } from "vitest";
import { eventually, readMetric, sleep, type ManagedProcess } from "@hub/testing";
import { SYSTEM_TEST_TIMEOUT_MS } from "@hub/testing/vitest";
import { useSystemHub, type SystemHub } from "./system-hub";

const system = useSystemHub({ dispatchers: 3, env: { HUB_SCHEDULES_ALLOW_SECONDS: "true" } });

const EVERY_SECOND = { cron: "* * * * * *", overlap: "allow" };

async function startSchedule(hub: SystemHub, automationId: string): Promise<string> {
  const created = await hub.client.post<{ id: string }>(`/automations/${automationId}/schedules`, EVERY_SECOND, { token: hub.adminToken });
  expect(created.status).toBe(201);
  return created.body.id;
}

async function stopSchedule(hub: SystemHub, scheduleId: string): Promise<void> {
  const disabled = await hub.client.put(`/schedules/${scheduleId}`, { ...EVERY_SECOND, enabled: false }, { token: hub.adminToken });
  expect(disabled.status).toBe(200);
}

/** The fire times of the schedule's jobs, in order, with duplicates kept (there must be none). */
async function fireTimesOf(hub: SystemHub, scheduleId: string): Promise<number[]> {
  const { rows } = await hub.database.pool.query<{ fire_time: Date }>("select fire_time from jobs where schedule_id = $1 order by fire_time", [scheduleId]);
  return rows.map((row) => row.fire_time.getTime());
}

/** Seconds between consecutive fire times: all 1 when no fire was lost and none doubled. */
const gapsOf = (times: number[]) => times.slice(1).map((time, index) => (time - times[index]!) / 1000);

/** A metric summed over every dispatcher process that is running. */
async function sumOverDispatchers(hub: SystemHub, name: string, labels: Record<string, string>): Promise<number> {
  let sum = 0;
  for (const dispatcher of hub.processes.dispatchers.filter((child) => child.running))
    sum += await readMetric(hub.processes.metricsUrl(dispatcher)!, name, labels);
  return sum;
}

/**
 * The dispatcher process whose PostgreSQL session connects from `clientPort`: the socket with that
 * local port in /proc/net/tcp{,6}, found among the process's open file descriptors (Linux).
 */
function dispatcherOwningPort(dispatchers: readonly ManagedProcess[], clientPort: number): ManagedProcess | undefined {
  const portHex = clientPort.toString(16).toUpperCase().padStart(4, "0");
  const inodes = new Set<string>();
  for (const table of ["/proc/net/tcp", "/proc/net/tcp6"]) {
    for (const line of readFileSync(table, "utf8").split("\n").slice(1)) {
      const fields = line.trim().split(/\s+/);
      if (fields[1]?.endsWith(`:${portHex}`)) inodes.add(fields[9]!);
    }
  }
  return dispatchers.find((dispatcher) => {
    if (!dispatcher.running || dispatcher.pid === undefined) return false;
    const fdDir = `/proc/${dispatcher.pid}/fd`;
    return readdirSync(fdDir).some((fd) => {
      try {
        const target = /^socket:\[(\d+)\]$/.exec(readlinkSync(`${fdDir}/${fd}`));
        return target !== null && inodes.has(target[1]!);
      } catch {
        return false;
      }
    });
  });
}

describe("a schedule fired by three dispatchers", () => {
  it(
    "when a schedule fires every second for 10 s, then each fire made exactly one job, whichever dispatcher made it",
    async () => {
      const hub = system();
      const { automationId } = await hub.createAutomationWithWorker();
      const errorsBefore = await sumOverDispatchers(hub, "hub_dispatcher_task_errors_total", { task: "schedules" });

      const scheduleId = await startSchedule(hub, automationId);
      await sleep(10_000);
      await stopSchedule(hub, scheduleId);

      const fireTimes = await fireTimesOf(hub, scheduleId);
      expect(fireTimes.length).toBeGreaterThanOrEqual(9);
      expect(new Set(fireTimes).size).toBe(fireTimes.length);
      expect(gapsOf(fireTimes).every((gap) => gap === 1)).toBe(true);
      // Every job a dispatcher counted was committed, and no fire pass failed (a second job for a fire
      // would have been refused by the unique index and failed its pass).
      expect(await sumOverDispatchers(hub, "hub_dispatcher_schedule_fires_total", { outcome: "created" })).toBe(fireTimes.length);
      expect(await sumOverDispatchers(hub, "hub_dispatcher_task_errors_total", { task: "schedules" })).toBe(errorsBefore);
    },
    SYSTEM_TEST_TIMEOUT_MS,
  );

  it(
    "when the dispatcher in the middle of a fire is SIGKILLed, then another makes that fire: none lost, none doubled",
    async () => {
      const hub = system();
      const { automationId } = await hub.createAutomationWithWorker();
      // Widens the window: each scheduled job's insert sleeps 400 ms inside the fire's transaction,
      // so the fire in flight can be caught and its dispatcher killed in it (a test-only trigger).
      await hub.database.pool.query(`
      create function test_slow_scheduled_insert() returns trigger language plpgsql as
        $$ begin perform pg_sleep(0.4); return new; end $$;
      create trigger test_slow_scheduled_insert before insert on jobs for each row
        when (new.schedule_id is not null) execute function test_slow_scheduled_insert();`);
      try {
        const scheduleId = await startSchedule(hub, automationId);
        await eventually(
          "a few fires",
          () => fireTimesOf(hub, scheduleId),
          (times) => times.length >= 2,
        );

        // The session sleeping in the trigger is a fire in flight; its client port names the process.
        const inFlight = await eventually(
          "a fire in flight",
          async () => {
            const { rows } = await hub.database.pool.query<{ client_port: number }>(
              `select client_port from pg_stat_activity
             where datname = current_database() and application_name = 'hub-dispatcher' and wait_event = 'PgSleep'`,
            );
            return rows[0]?.client_port;
          },
          (port) => port !== undefined,
        );
        const victim = dispatcherOwningPort(hub.processes.dispatchers, inFlight!);
        expect(victim, "the dispatcher holding the fire in flight").toBeDefined();
        const firesBeforeKill = (await fireTimesOf(hub, scheduleId)).length;
        expect(await victim!.kill("SIGKILL")).toEqual({ code: null, signal: "SIGKILL" });

        // The victim was waiting for its insert, before its COMMIT: PostgreSQL rolls the fire back
        // once the statement ends and the connection is found gone, and a survivor makes it.
        await eventually(
          "five more fires",
          () => fireTimesOf(hub, scheduleId),
          (times) => times.length >= firesBeforeKill + 5,
        );
        await stopSchedule(hub, scheduleId);
        await victim!.restart();

        const fireTimes = await fireTimesOf(hub, scheduleId);
        expect(new Set(fireTimes).size).toBe(fireTimes.length);
        expect(gapsOf(fireTimes).every((gap) => gap === 1)).toBe(true);
      } finally {
        await hub.database.pool.query("drop trigger test_slow_scheduled_insert on jobs; drop function test_slow_scheduled_insert()");
      }
    },
    SYSTEM_TEST_TIMEOUT_MS,
  );
});
