import fs from "node:fs";
import os from "node:os";
import path from "node:path";
import { setTimeout as sleep } from "node:timers/promises";
import { afterEach, describe, expect, it, vi } from "vitest";
import { createLogger, LOG_FLUSH_INTERVAL_MS } from "./logger";

describe("createLogger", () => {
  const opened: number[] = [];
  afterEach(() => {
    vi.restoreAllMocks();
    for (const fd of opened.splice(0)) fs.closeSync(fd);
  });

  function logFile(): { fd: number; read: () => string } {
    const file = path.join(fs.mkdtempSync(path.join(os.tmpdir(), "hub-logger-")), "log");
    const fd = fs.openSync(file, "a");
    opened.push(fd);
    return { fd, read: () => fs.readFileSync(file, "utf8") };
  }

  it("writes a held line within the flush interval", async () => {
    const { fd, read } = logFile();
    const logger = createLogger("test", "info", fd);
    logger.info({ n: 1 }, "first");
    expect(read()).toBe("");
    await sleep(LOG_FLUSH_INTERVAL_MS * 2 + 100);
    expect(read()).toContain('"msg":"first"');
    logger.info("second");
    await sleep(LOG_FLUSH_INTERVAL_MS * 2 + 100);
    expect(read().trim().split("\n")).toHaveLength(2);
  });

  it("writes a short line logged right after a full chunk went out", async () => {
    const { fd, read } = logFile();
    const logger = createLogger("test", "info", fd);
    for (let i = 0; i < 60; i++) logger.info({ filler: "x".repeat(60) }, "chunk");
    logger.info("last");
    await sleep(LOG_FLUSH_INTERVAL_MS * 2 + 100);
    expect(read()).toContain('"msg":"last"');
  });

  it("does not write while nothing is logged", async () => {
    const { fd } = logFile();
    const logger = createLogger("test", "info", fd);
    logger.info("one line");
    await sleep(LOG_FLUSH_INTERVAL_MS * 2 + 100);
    const writes = vi.spyOn(fs, "write");
    // An idle process must not wake to write nothing: no write at all for several intervals.
    await sleep(LOG_FLUSH_INTERVAL_MS * 4);
    expect(writes).not.toHaveBeenCalled();
  });
});
