import { runHubProcess } from "@hub/db";
import { startApi } from "./app";
import { loadApiEnv } from "./env";

await runHubProcess({ name: "api", loadEnv: loadApiEnv, start: startApi });
