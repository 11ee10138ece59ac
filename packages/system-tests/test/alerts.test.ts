/**
 * System tests of alerts (CONTRACT §6.19) with three dispatcher processes and no leader: a round
 * runs once per interval whatever their number, a rule fires once and resolves once, and a
 * dispatcher SIGKILLed in the middle of a round neither loses nor doubles the transition.
 */
import { readdirSync, readFileSync, readlinkSync } from "node:fs";
import { describe, expect, it } from "vitest";
import { eventually, readMetric, sleep, type ManagedProcess } from "@hub/testing";
import { SYSTEM_TEST_TIMEOUT_MS } from "@hub/testing/vitest";
import { useSystemHub, type SystemHub } from "./system-hub";

const INTERVAL_MS = 500;
const system = useSystemHub({ dispatchers: 3, env: { HUB_ALERTS_EVALUATION_INTERVAL_MS: String(INTERVAL_MS) } });

async function createRule(hub: SystemHub, body: Record<string, unknown>): Promise<string> {
  const created = await hub.client.post<{ id: string }>("/alert-rules", body, { token: hub.adminToken });
  expect(created.status).toBe(201);
  return created.body.id;
}

async function createJob(hub: SystemHub, automationId: string): Promise<string> {
  const created = await hub.client.post<{ id: string }>("/jobs", { automation_id: automationId, context: {} }, { token: hub.adminToken });
  expect(created.status).toBe(201);
  return created.body.id;
}

/** The alert events of a rule, oldest first. */
async function alertEventsOf(hub: SystemHub, ruleId: string): Promise<string[]> {
  const { rows } = await hub.database.pool.query<{ event_type: string }>("select event_type from events where aggregate_id = $1 order by position", [ruleId]);
  return rows.map((row) => row.event_type);
}

/** A metric summed over every dispatcher process that is running. */
async function sumOverDispatchers(hub: SystemHub, name: string, labels: Record<string, string> = {}): Promise<number> {
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

describe("alerts evaluated by three dispatchers", () => {
  it(
    "when three dispatchers evaluate for 5 s, then rounds come once per interval, not three times, and a rule fires once and resolves once",
    async () => {
      const hub = system();
      const { automationId } = await hub.createAutomationWithWorker();
      const jobId = await createJob(hub, automationId);
      const ruleId = await createRule(hub, { automation_id: automationId, kind: "queue_depth", threshold: 1 });
      const roundsBefore = await sumOverDispatchers(hub, "hub_dispatcher_alert_evaluations_total");

      await sleep(5000);
      const rounds = (await sumOverDispatchers(hub, "hub_dispatcher_alert_evaluations_total")) - roundsBefore;
      expect(await alertEventsOf(hub, ruleId)).toEqual(["alert.firing"]);
      await hub.client.post(`/jobs/${jobId}/cancel`, {}, { token: hub.adminToken });
      await eventually(
        "the resolution",
        () => alertEventsOf(hub, ruleId),
        (types) => types.length >= 2,
      );
      await sleep(2 * INTERVAL_MS);

      // One round per interval at most (5 s / 500 ms), and at least one per 1.5 intervals.
      expect(rounds).toBeLessThanOrEqual(5000 / INTERVAL_MS + 1);
      expect(rounds).toBeGreaterThanOrEqual(5000 / (1.5 * INTERVAL_MS) - 1);
      expect(await alertEventsOf(hub, ruleId)).toEqual(["alert.firing", "alert.resolved"]);
    },
    SYSTEM_TEST_TIMEOUT_MS,
  );

  it(
    "when the dispatcher in the middle of a round is SIGKILLed, then another writes the firing: one alert.firing, and later one alert.resolved",
    async () => {
      const hub = system();
      const { automationId } = await hub.createAutomationWithWorker();
      const jobId = await createJob(hub, automationId);
      // Widens the window: the firing event's insert sleeps 1 s inside the round's transaction, so the
      // round in flight can be caught and its dispatcher killed in it (a test-only trigger).
      await hub.database.pool.query(`
      create function test_slow_alert_event() returns trigger language plpgsql as
        $$ begin perform pg_sleep(1); return new; end $$;
      create trigger test_slow_alert_event before insert on events for each row
        when (new.event_type = 'alert.firing') execute function test_slow_alert_event();`);
      let ruleId = "";
      try {
        ruleId = await createRule(hub, { automation_id: automationId, kind: "queue_depth", threshold: 1 });
        const inFlight = await eventually(
          "a round in flight",
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
        expect(victim, "the dispatcher holding the round in flight").toBeDefined();
        expect(await victim!.kill("SIGKILL")).toEqual({ code: null, signal: "SIGKILL" });

        await eventually(
          "the firing, by a survivor",
          () => alertEventsOf(hub, ruleId),
          (types) => types.length >= 1,
        );
        await sleep(3 * INTERVAL_MS);
        expect(await alertEventsOf(hub, ruleId)).toEqual(["alert.firing"]);
        await victim!.restart();
      } finally {
        await hub.database.pool.query("drop trigger test_slow_alert_event on events; drop function test_slow_alert_event()");
      }
      await hub.client.post(`/jobs/${jobId}/cancel`, {}, { token: hub.adminToken });
      await eventually(
        "the resolution",
        () => alertEventsOf(hub, ruleId),
        (types) => types.length >= 2,
      );
      await sleep(3 * INTERVAL_MS);
      expect(await alertEventsOf(hub, ruleId)).toEqual(["alert.firing", "alert.resolved"]);
    },
    SYSTEM_TEST_TIMEOUT_MS,
  );
});
