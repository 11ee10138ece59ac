import { Writable } from "node:stream";
import { pino } from "pino";
import type { Logger } from "@hub/shared";

/** A logger that keeps its JSON lines, for tests about what a process logs. */
export function capturingLogger(level = "info"): { logger: Logger; lines: () => Array<Record<string, unknown>> } {
  const lines: Array<Record<string, unknown>> = [];
  const sink = new Writable({
    write(chunk: Buffer, _encoding, callback) {
      for (const line of chunk.toString().split("\n")) if (line.trim()) lines.push(JSON.parse(line));
      callback();
    },
  });
  return { logger: pino({ level }, sink), lines: () => lines };
}
