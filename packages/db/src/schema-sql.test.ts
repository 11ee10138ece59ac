/**
 * packages/db/schema.sql shows the schema a fresh migrate produces: when a migration changes the
 * schema, this fails until `pnpm --filter @hub/db db:schema` rewrites the file.
 */
import { readFile } from "node:fs/promises";
import { afterAll, beforeAll, expect, it } from "vitest";
import { createScratchDatabase, type ScratchDatabase } from "@hub/test-services";
import { testServiceUrls } from "@hub/test-services/vitest";
import { prepareDatabase } from "./migrate";
import { dumpSchema, schemaSqlPath } from "./schema-dump";

let scratch: ScratchDatabase;

beforeAll(async () => {
  scratch = await createScratchDatabase(testServiceUrls().databaseServerUrl, { prepare: prepareDatabase });
});

afterAll(() => scratch?.drop());

it("when the database is migrated from nothing, then its schema is the one schema.sql shows", async () => {
  const committed = await readFile(schemaSqlPath, "utf8");
  const fresh = await dumpSchema(scratch.url);
  expect(fresh, "schema.sql is out of date: run `pnpm --filter @hub/db db:schema` and commit it").toBe(committed);
});
