/** The real app (`src/main.ts`) as a child process, for the process-level tests. */
import { spawn, type ChildProcess } from "node:child_process";
import { once } from "node:events";
import { fileURLToPath } from "node:url";
import { testServiceUrls } from "@hub/testing/vitest";
import { freePort, waitFor, type RelayTestbed } from "./harness";

const appDir = fileURLToPath(new URL("..", import.meta.url));

export interface RelayProcess {
  child: ChildProcess;
  metricsUrl: string;
  exited: Promise<{ code: number | null; signal: NodeJS.Signals | null }>;
  output(): string;
}

/** Starts `src/main.ts` on the test bed's database and Redis prefix; `extraEnv` adds or overrides variables. */
export async function startRelayProcess(bed: RelayTestbed, extraEnv: Record<string, string> = {}): Promise<RelayProcess> {
  const port = await freePort();
  const child = spawn(process.execPath, ["--import", "tsx", "src/main.ts"], {
    cwd: appDir,
    env: {
      PATH: process.env.PATH,
      DATABASE_URL: bed.database.url,
      REDIS_URL: testServiceUrls().redisUrl,
      HUB_REDIS_PREFIX: bed.prefix,
      HUB_RELAY_METRICS_PORT: String(port),
      HUB_RELAY_REBALANCE_MS: "150",
      HUB_RELAY_BATCH_SIZE: "100",
      LOG_LEVEL: "info",
      ...extraEnv,
    },
    stdio: ["ignore", "pipe", "pipe"],
  });
  let output = "";
  child.stdout!.on("data", (chunk: Buffer) => (output += chunk.toString()));
  child.stderr!.on("data", (chunk: Buffer) => (output += chunk.toString()));
  const exited = once(child, "exit").then(([code, signal]) => ({ code: code as number | null, signal: signal as NodeJS.Signals | null }));
  const metricsUrl = `http://127.0.0.1:${port}`;
  await waitFor(
    `the relay process answers /healthz (output so far: ${output})`,
    async () => {
      if (child.exitCode !== null) throw new Error(`relay process exited early: ${output}`);
      return (await fetch(`${metricsUrl}/healthz`).catch(() => undefined))?.status === 200;
    },
    30_000,
  );
  return { child, metricsUrl, exited, output: () => output };
}

/** SIGKILLs the processes a test left running and waits for them to exit; empties the list. */
export async function killLeftovers(children: ChildProcess[]): Promise<void> {
  for (const child of children.splice(0)) {
    if (child.exitCode === null && child.signalCode === null) {
      child.kill("SIGKILL");
      await once(child, "exit");
    }
  }
}
