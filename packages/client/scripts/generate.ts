/** `pnpm --filter @hub/client generate`: rewrites src/schema.ts from the API's OpenAPI document. */
import { writeFileSync } from "node:fs";
import { generateSchemaSource, SCHEMA_FILE } from "./schema-source";

writeFileSync(SCHEMA_FILE, await generateSchemaSource());
process.stdout.write(`wrote ${SCHEMA_FILE}\n`);
