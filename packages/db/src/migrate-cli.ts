// `pnpm --filter @hub/db db:migrate`: applies migrations to DATABASE_URL and exits.
import { prepareDatabase } from "./migrate";

const url = process.env.DATABASE_URL ?? "postgres://postgres@127.0.0.1:5432/automation_hub";
await prepareDatabase(url);
process.stdout.write("migrations applied\n");
