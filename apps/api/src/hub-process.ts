import { runHubProcess } from "@hub/process";
import { startApi } from "./app";
import { loadApiEnv } from "./env";

await runHubProcess({ name: "api", loadEnv: loadApiEnv, start: startApi });
