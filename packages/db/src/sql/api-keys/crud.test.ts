/** The write of an api key's `last_used_at` against the real database: once a minute, whoever races. */
import { sql } from "drizzle-orm";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { openDatabase, type Database } from "../../client";
import { createScratchDatabase, type ScratchDatabase } from "@hub/test-services";
import { testServiceUrls } from "@hub/test-services/vitest";
import { prepareDatabase } from "../../migrate";
import { apiKeys } from "../../index";

/** Concurrent writers, each on its own connection. */
const RACERS = 8;

let database: ScratchDatabase;
let hub: Database;
let keyId: string;

beforeAll(async () => {
  database = await createScratchDatabase(testServiceUrls().databaseServerUrl, { prepare: prepareDatabase });
  hub = openDatabase(database.url, { max: RACERS });
  const { rows } = await hub.db.execute<{ id: string }>(sql`
    with person as (insert into users (email, password_hash, role) values ('u@hub.test', 'x', 'employee') returning id)
    insert into api_keys (user_id, name, prefix, digest, expires_at)
    select id, 'k', 'abcdefgh', 'digest', now() + interval '1 day' from person returning id`);
  keyId = rows[0]!.id;
});

afterAll(async () => {
  await hub?.close();
  await database?.drop();
});

const race = () => Promise.all(Array.from({ length: RACERS }, () => apiKeys.touchLastUsed(hub.pool, keyId)));

describe("apiKeys.touchLastUsed", () => {
  it("when several connections touch a never-used key at once, then exactly one writes", async () => {
    expect((await race()).filter(Boolean)).toHaveLength(1);
  });

  it("when touched again within the resolution, then nobody writes; once it has passed, one does", async () => {
    expect((await race()).filter(Boolean)).toHaveLength(0);

    await hub.db.execute(sql`update api_keys set last_used_at = now() - make_interval(secs => ${apiKeys.API_KEY_LAST_USED_RESOLUTION_SECONDS + 1})`);

    expect((await race()).filter(Boolean)).toHaveLength(1);
  });
});
