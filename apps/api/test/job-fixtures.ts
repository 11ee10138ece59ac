/**
 * Arrange helpers for the job and worker-protocol tests: a hub with its dispatcher running
 * in-process (claims find only what the dispatcher offered), automations with workers, jobs.
 */
import { createDispatcher, type Dispatcher, type DispatcherConfig } from "@hub/dispatcher";
import { openDatabase, type HubEvent } from "@hub/db";
import { createLogger, createRedis } from "@hub/shared";
import { waitUntil } from "@hub/testing";
import { createAutomation, createSector, eventsOf } from "./automation-fixtures";
import { startTestHub, useStartedHub, type HttpResult, type TestHub } from "./harness";

export interface DispatchingHub extends TestHub {
  dispatcher: Dispatcher;
}

/**
 * Starts the API and a dispatcher on the same database and Redis prefix, as two processes would.
 * `dispatcherConfig` overrides the dispatcher's intervals (e.g. a slow lease sweeper).
 */
export async function startHubWithDispatcher(
  overrides: Record<string, string> = {},
  dispatcherConfig: Partial<DispatcherConfig> = {},
): Promise<DispatchingHub> {
  const hub = await startTestHub(overrides);
  const database = openDatabase(hub.env.DATABASE_URL, { max: 5, applicationName: "hub-dispatcher-test" });
  const redis = createRedis(hub.env.REDIS_URL, "hub-dispatcher-test");
  const dispatcher = createDispatcher({
    database,
    redis,
    keys: hub.api.ctx.keys,
    logger: createLogger("dispatcher-test", hub.env.LOG_LEVEL),
    config: { maxAttempts: hub.env.HUB_JOB_MAX_ATTEMPTS, workerTtlSeconds: hub.env.HUB_WORKER_TTL_SECONDS, ...dispatcherConfig },
  });
  await dispatcher.start();
  return {
    ...hub,
    dispatcher,
    stop: async () => {
      await dispatcher.stop();
      redis.disconnect();
      await database.close();
      await hub.stop();
    },
  };
}

/** {@link startHubWithDispatcher} for the whole test file, in the hook idiom of `useTestHub`. */
export function useHubWithDispatcher(overrides: Record<string, string> = {}, dispatcherConfig: Partial<DispatcherConfig> = {}): DispatchingHub {
  return useStartedHub(() => startHubWithDispatcher(overrides, dispatcherConfig));
}

export interface AutomationWithWorker {
  automationId: string;
  workerKey: string;
  workerId: string;
}

/** An active automation in a new sector, with a registered worker. */
export async function createAutomationWithWorker(hub: TestHub, body: Record<string, unknown> = {}): Promise<AutomationWithWorker> {
  const sector = await createSector(hub);
  const automationId = await createAutomation(hub, { sector_id: sector.id, ...body });
  const registered = await hub.client.post<{ id: string; api_key: string }>(
    `/automations/${automationId}/worker`,
    { cloud_instance_id: "i-0123456789" },
    { token: hub.adminToken },
  );
  if (registered.status !== 201) throw new Error(`worker not registered: ${registered.status} ${JSON.stringify(registered.body)}`);
  return { automationId, workerKey: registered.body.api_key, workerId: registered.body.id };
}

/** POST /jobs that must succeed; returns the new job's id. */
export async function createJob(hub: TestHub, automationId: string, token = hub.adminToken, context: Record<string, unknown> = {}): Promise<string> {
  const created = await hub.client.post<{ id: string }>("/jobs", { automation_id: automationId, context }, { token });
  if (created.status !== 201) throw new Error(`job not created: ${created.status} ${JSON.stringify(created.body)}`);
  return created.body.id;
}

/**
 * Creates `count` jobs one after another (distinct creation times), then has the dispatcher offer
 * every queued job, so a claim made next sees all of them.
 */
export async function queueJobs(hub: DispatchingHub, automationId: string, count: number): Promise<string[]> {
  const ids: string[] = [];
  for (let index = 0; index < count; index += 1) ids.push(await createJob(hub, automationId, hub.adminToken));
  await hub.dispatcher.reconcileNow();
  return ids;
}

export function claim(hub: TestHub, workerKey: string, waitSeconds = 0): Promise<HttpResult<any>> {
  return hub.client.post("/jobs/claim", { wait_seconds: waitSeconds }, { workerKey });
}

/** The ids in the automation's Redis ready set, in its order (claim order). */
export async function readyJobIds(hub: TestHub, automationId: string): Promise<string[]> {
  return (await hub.api.ctx.dispatch.ready.candidates(automationId, 100)).map((job) => job.id);
}

/** GET /jobs/{id} as the admin. */
export async function readJob(hub: TestHub, jobId: string): Promise<any> {
  const result = await hub.client.get(`/jobs/${jobId}`, { token: hub.adminToken });
  if (result.status !== 200) throw new Error(`job ${jobId} not readable: ${result.status}`);
  return result.body;
}

/** The job's event types, in the order they were written. */
export async function eventTypesOf(hub: TestHub, jobId: string): Promise<string[]> {
  return (await eventsOf(hub, jobId)).map((event) => event.eventType);
}

export async function lastEventOf(hub: TestHub, jobId: string): Promise<HubEvent | undefined> {
  return (await eventsOf(hub, jobId)).at(-1);
}

export { sleep } from "@hub/testing";

/** Resolves once `condition` holds; fails after `timeoutMs`. For effects that happen in the background after a response. */
export function waitFor(condition: () => Promise<boolean>, { timeoutMs = 15_000, intervalMs = 50 } = {}): Promise<void> {
  return waitUntil("a background effect of the request", condition, timeoutMs, intervalMs);
}
