/** A second HTTP server over a running hub's context whose logger writes into memory, to read its request lines. */
import type { AddressInfo } from "node:net";
import { pino } from "pino";
import { createApp } from "../src/app";
import type { AppContext } from "../src/context";
import { HubClient } from "./harness";

export interface LoggedCopy {
  client: HubClient;
  /** Every line logged so far, as written (JSON); tests may empty it. */
  lines: string[];
  close(): Promise<void>;
}

/** Serves `ctx` on a free port with an in-memory logger at level info. */
export async function startLoggedCopy(ctx: AppContext): Promise<LoggedCopy> {
  const lines: string[] = [];
  const logger = pino({ level: "info" }, { write: (line: string) => void lines.push(line) });
  const server = createApp({ ...ctx, logger }).listen(0);
  await new Promise<void>((resolve) => server.once("listening", resolve));
  return {
    client: new HubClient(`http://127.0.0.1:${(server.address() as AddressInfo).port}`),
    lines,
    close: () => new Promise<void>((resolve) => server.close(() => resolve())),
  };
}
