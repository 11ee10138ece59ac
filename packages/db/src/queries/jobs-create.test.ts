/** The Idempotency-Key memory against the real database: bindings live 24 hours, then go. */
import { sql } from "drizzle-orm";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { openDatabase, type Database } from "../client";
import { createTestDatabase, type TestDatabase } from "../testing";
import { testServiceUrls } from "../testing-inject";
import { forgetExpiredIdempotencyKeys } from "./jobs-create";

let database: TestDatabase;
let hub: Database;

beforeAll(async () => {
  database = await createTestDatabase(testServiceUrls().databaseServerUrl);
  hub = openDatabase(database.url, { max: 2 });
});

afterAll(async () => {
  await hub?.close();
  await database?.drop();
});

describe("forgetExpiredIdempotencyKeys", () => {
  it("when bindings are older and younger than 24 hours, then only the older ones are forgotten", async () => {
    await hub.db.execute(sql`
      with sector as (insert into sectors (name, color) values ('s', '#000000') returning id),
      automation as (insert into automations (name, slug, sector_id) select 'a', 'a', id from sector returning id),
      job as (insert into jobs (automation_id) select id from automation returning id),
      person as (insert into users (email, password_hash, role) values ('u@hub.test', 'x', 'admin') returning id)
      insert into idempotency_keys (user_id, key, job_id, created_at)
      select person.id, k.key, job.id, now() - k.age
      from person, job, (values ('old', interval '25 hours'), ('edge', interval '24 hours 1 second'), ('young', interval '23 hours')) as k(key, age)`);

    const forgotten = await forgetExpiredIdempotencyKeys(hub.pool);

    const kept = (await hub.db.execute<{ key: string }>(sql`select key from idempotency_keys order by key`)).rows.map((row) => row.key);
    expect(forgotten).toBe(2);
    expect(kept).toEqual(["young"]);
  });
});
