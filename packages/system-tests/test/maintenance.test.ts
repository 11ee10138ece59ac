/**
 * System test of maintenance windows (CONTRACT §6.18) with three dispatcher processes and no
 * leader: a dispatcher SIGKILLed while it writes an occurrence's maintenance_window.ended leaves the
 * row unstamped, and another writes it: one .ended, none lost, none doubled; the held job starts.
 */
import { readdirSync, readFileSync, readlinkSync } from "node:fs";
import { describe, expect, it } from "vitest";
import { eventually, type ManagedProcess } from "@hub/testing";
import { SYSTEM_TEST_TIMEOUT_MS } from "@hub/testing/vitest";
import { useSystemHub } from "./system-hub";

const system = useSystemHub({ dispatchers: 3 });

/** The dispatcher process whose PostgreSQL connection has this client port (its socket's inode in /proc). */
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

describe("maintenance windows with three dispatchers", () => {
  it(
    "when the dispatcher writing a window's .ended is SIGKILLed, then another writes it once, and the held job starts",
    async () => {
      const hub = system();
      const { automationId, workerKey } = await hub.createAutomationWithWorker();
      // Widens the window: writing a .ended sleeps 1 s inside the dispatcher's statement, so the write in
      // flight can be caught and its dispatcher killed in it (a test-only trigger).
      await hub.database.pool.query(`
      create function test_slow_maintenance_ended() returns trigger language plpgsql as
        $$ begin perform pg_sleep(1); return new; end $$;
      create trigger test_slow_maintenance_ended before insert on events for each row
        when (new.event_type = 'maintenance_window.ended') execute function test_slow_maintenance_ended();`);
      try {
        const { rows } = await hub.database.pool.query<{ now: Date }>("select now()");
        const now = rows[0]!.now.getTime();
        const startsAt = new Date(now - 1000).toISOString();
        const endsAt = new Date(now + 2000).toISOString();
        const window = await hub.client.post<{ id: string }>(
          "/maintenance-windows",
          { automation_id: automationId, starts_at: startsAt, ends_at: endsAt },
          { token: hub.adminToken },
        );
        expect(window.status).toBe(201);
        const job = await hub.client.post<{ id: string }>("/jobs", { automation_id: automationId }, { token: hub.adminToken });

        const inFlight = await eventually(
          "a .ended in flight",
          async () => {
            const { rows: sleeping } = await hub.database.pool.query<{ client_port: number }>(
              `select client_port from pg_stat_activity
             where datname = current_database() and application_name = 'hub-dispatcher' and wait_event = 'PgSleep'`,
            );
            return sleeping[0]?.client_port;
          },
          (port) => port !== undefined,
        );
        const victim = dispatcherOwningPort(hub.processes.dispatchers, inFlight!);
        expect(victim, "the dispatcher writing the .ended").toBeDefined();
        expect(await victim!.kill("SIGKILL")).toEqual({ code: null, signal: "SIGKILL" });

        const ended = await eventually(
          "the .ended written by a survivor",
          async () =>
            (
              await hub.database.pool.query<{ payload: unknown }>(
                "select payload from events where aggregate_id = $1 and event_type = 'maintenance_window.ended'",
                [window.body.id],
              )
            ).rows,
          (found) => found.length > 0,
        );
        const claimed = await hub.client.post<{ id: string }>("/jobs/claim", { wait_seconds: 5 }, { workerKey });
        expect(claimed.body.id).toBe(job.body.id);
        await victim!.restart();
        await new Promise((resolve) => setTimeout(resolve, 2500));
        const { rows: all } = await hub.database.pool.query<{ event_type: string }>(
          "select event_type from events where aggregate_id = $1 and event_type in ('maintenance_window.started', 'maintenance_window.ended')",
          [window.body.id],
        );
        expect(all.map((row) => row.event_type).sort()).toEqual(["maintenance_window.ended", "maintenance_window.started"]);
        expect(ended[0]!.payload).toEqual({ starts_at: startsAt, ends_at: endsAt });
      } finally {
        await hub.database.pool.query("drop trigger test_slow_maintenance_ended on events; drop function test_slow_maintenance_ended()");
      }
    },
    SYSTEM_TEST_TIMEOUT_MS,
  );
});
