/**
 * For @hub/db's own tests (the hub's fixtures live in @hub/testing, which depends on this package
 * and so cannot serve it): a migrated database per test file, rows staged through the package's
 * own queries, the events of an aggregate checked against the event catalogue, and a connection
 * that reports the plan of every statement it runs.
 */
import { randomBytes } from "node:crypto";
import type pg from "pg";
import { afterAll, beforeAll } from "vitest";
import { EVENT_CATALOGUE, isEventType } from "@hub/shared";
import { createScratchDatabase, type ScratchDatabase } from "@hub/test-services";
import { testServiceUrls } from "@hub/test-services/vitest";
import { openDatabase, type Database } from "./client";
import { withTransaction } from "./executor";
import { prepareDatabase } from "./migrate";
import type { jobs } from "./index";
import { type AutomationParameter, type HubEvent, automations, events, sectors, users, workers } from "./index";

/** Registers the file's hooks: a migrated database of its own, dropped in afterAll. Returns a getter. */
export function useTestDatabase(): () => Database {
  let scratch: ScratchDatabase | undefined;
  let database: Database | undefined;
  beforeAll(async () => {
    scratch = await createScratchDatabase(testServiceUrls().databaseServerUrl, { prepare: prepareDatabase });
    database = openDatabase(scratch.url, { max: 4, applicationName: "db-query-test" });
  });
  afterAll(async () => {
    await database?.close();
    await scratch?.drop();
  });
  return () => {
    if (!database) throw new Error("the test database is not open (did beforeAll fail?)");
    return database;
  };
}

export interface StagedAutomation {
  automationId: string;
  /** The automation's registered worker, as a worker call names it. */
  worker: jobs.LeaseHolder;
  /** An admin, for `created_by` and `actor_id`. */
  userId: string;
}

/** An active automation (its sector, an admin, a registered worker), written with the package's queries. */
export async function stageAutomation(
  database: Database,
  settings: { maxConcurrentJobs?: number; maxAttempts?: number; retryBackoffSeconds?: number; parameters?: AutomationParameter[] } = {},
): Promise<StagedAutomation> {
  const suffix = randomBytes(4).toString("hex");
  return withTransaction(database.pool, async (tx) => {
    const { id: userId } = await users.insert(tx, { email: `admin-${suffix}@hub.test`, passwordHash: "not-a-hash", role: "admin" });
    const sectorId = await sectors.insert(tx, { name: `sector ${suffix}`, color: "#123456" }, userId);
    const automation = await automations.insert(tx, {
      name: `automation ${suffix}`,
      slug: `automation-${suffix}`,
      sectorId,
      parameters: settings.parameters ?? [],
      maxConcurrentJobs: settings.maxConcurrentJobs ?? 1,
      maxAttempts: settings.maxAttempts ?? null,
      ...(settings.retryBackoffSeconds === undefined ? {} : { retryBackoffSeconds: settings.retryBackoffSeconds }),
    });
    const worker = await workers.register(tx, { automationId: automation.id, cloudInstanceId: "i-query-test", apiKeyHash: randomBytes(32).toString("hex") });
    return { automationId: automation.id, worker: { id: worker.id, automationId: automation.id }, userId };
  });
}

/**
 * The events of `aggregateId`, oldest first; throws when one has a type outside the catalogue or
 * a payload its catalogue schema refuses, so every statement under test writes what the
 * contract says.
 */
export async function catalogueCheckedEvents(database: Database, aggregateId: string): Promise<HubEvent[]> {
  const recorded = await events.list(database.pool, { aggregateId, limit: 1000 });
  for (const event of recorded) {
    if (!isEventType(event.eventType)) throw new Error(`event ${event.id} has the type ${event.eventType}, which the catalogue does not know`);
    const parsed = EVENT_CATALOGUE[event.eventType].payload.safeParse(event.payload);
    if (!parsed.success) throw new Error(`${event.eventType} payload ${JSON.stringify(event.payload)} breaks the catalogue: ${parsed.error.message}`);
  }
  return recorded;
}

/**
 * A connection of `database` whose every plan, the statements inside functions included, arrives
 * as a notice and is pushed onto `plans` (auto_explain). `planCacheMode` picks the plans a named
 * prepared statement runs: `force_generic_plan` as after its fifth execution, `force_custom_plan`
 * as in its first five (and whenever PostgreSQL finds them cheaper), planned for the values sent.
 */
export async function connectReportingPlans(
  database: Database,
  planCacheMode: "force_generic_plan" | "force_custom_plan",
  plans: string[],
): Promise<pg.PoolClient> {
  const client = await database.pool.connect();
  await client.query(`set plan_cache_mode = ${planCacheMode}`);
  client.on("notice", (notice) => plans.push(notice.message ?? ""));
  await client.query("load 'auto_explain'");
  await client.query("set auto_explain.log_min_duration = 0");
  await client.query("set auto_explain.log_nested_statements = on");
  await client.query("set auto_explain.log_level = 'notice'");
  return client;
}
