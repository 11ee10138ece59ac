/**
 * Rewrites packages/db/schema.sql from a fresh migrate: a scratch database on the server of
 * DATABASE_URL (default the local one), migrated, dumped and dropped. `pnpm --filter @hub/db db:schema`.
 */
import { writeFile } from "node:fs/promises";
import { createScratchDatabase } from "@hub/test-services";
import { prepareDatabase } from "../src/migrate";
import { dumpSchema, schemaSqlPath } from "../src/schema-dump";

const serverUrl = process.env.DATABASE_URL ?? "postgres://postgres@127.0.0.1:5432/postgres";
const scratch = await createScratchDatabase(serverUrl, { label: "hub_schema", prepare: prepareDatabase });
try {
  await writeFile(schemaSqlPath, await dumpSchema(scratch.url));
  process.stderr.write(`wrote ${schemaSqlPath}\n`);
} finally {
  await scratch.drop();
}
