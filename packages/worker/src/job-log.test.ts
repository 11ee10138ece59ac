/** Log messages as the hub stores them, their way there, and the `::progress` and `::<level>` lines of hub-worker's commands. */
import { describe, expect, it } from "vitest";
import { logLineOf, progressLine } from "./cli/run-command";
import { HubUnreachableError, LeaseLostError } from "./errors";
import type { WorkerEvent } from "./events";
import { MAX_LOG_LINE_LENGTH, type HubJob, type LogLine } from "./hub-client";
import { LogBudget, logMessages, openJobLog } from "./job-log";

describe("logMessages", () => {
  it("when a message is longer than the hub's line limit, then it is split into pieces of at most that length, never inside a surrogate pair", () => {
    const text = `${"a".repeat(MAX_LOG_LINE_LENGTH - 1)}😀${"b".repeat(10)}`;

    const pieces = logMessages(text);

    expect(pieces).toEqual(["a".repeat(MAX_LOG_LINE_LENGTH - 1), `😀${"b".repeat(10)}`]);
    expect(pieces.join("")).toBe(text);
  });

  it("when a message holds NUL characters or lone surrogates, then they are removed or replaced, and an empty message makes no line", () => {
    expect(logMessages("a\u0000b\uD800c")).toEqual(["ab\uFFFDc"]);
    expect(logMessages("")).toEqual([]);
  });
});

describe("progressLine", () => {
  it("when a line is ::progress with a number, then it is a progress report with its optional message", () => {
    expect(progressLine("::progress 42 exporting invoices")).toEqual({ percent: 42, message: "exporting invoices" });
    expect(progressLine("::progress 12.5%")).toEqual({ percent: 12.5, message: undefined });
  });

  it("when a line only looks like one, then it is an ordinary line", () => {
    expect(progressLine("::progress")).toBeUndefined();
    expect(progressLine("::progress soon")).toBeUndefined();
    expect(progressLine("progress 42")).toBeUndefined();
  });
});

describe("logLineOf", () => {
  it("when a line starts with ::<level> and a space, then it is logged at that level without the prefix; any other line at info", () => {
    expect(logLineOf("::warn invoice 17 has no VAT number")).toEqual({ level: "warn", message: "invoice 17 has no VAT number" });
    expect(logLineOf("::error ledger refused")).toEqual({ level: "error", message: "ledger refused" });
    expect(logLineOf("::warning not a level")).toEqual({ level: "info", message: "::warning not a level" });
    expect(logLineOf("plain")).toEqual({ level: "info", message: "plain" });
  });
});

describe("openJobLog against a stand-in hub", () => {
  const job = { id: "6f1c1a56-34a4-4c39-9a1c-5a0c3f0d2b10", attempts: 2 } as HubJob;

  function standIn(answer: (lines: LogLine[]) => Promise<{ accepted: number; truncated: boolean }>) {
    const requests: LogLine[][] = [];
    const events: WorkerEvent[] = [];
    const budget = new LogBudget(1024 * 1024, (event) => events.push(event));
    const takenBack: unknown[] = [];
    const log = openJobLog(job, {
      client: {
        appendLogs: async (_jobId, lines) => {
          requests.push(lines);
          return answer(lines);
        },
      },
      budget,
      emit: (event) => events.push(event),
      onTakenBack: (error) => takenBack.push(error),
      onUnauthorized: () => undefined,
    });
    return { log, requests, events, budget, takenBack };
  }

  it("when lines are written faster than the hub answers, then one request at a time carries them, in the order written", async () => {
    const hub = standIn(async (lines) => {
      await new Promise((resolve) => setTimeout(resolve, 30));
      return { accepted: lines.length, truncated: false };
    });
    for (let index = 0; index < 50; index += 1) {
      hub.log.write("info", `line ${index}`);
      if (index % 10 === 0) await new Promise((resolve) => setTimeout(resolve, 20));
    }

    await hub.log.close(Date.now() + 5000);

    expect(hub.requests.flat().map((line) => line.message)).toEqual(Array.from({ length: 50 }, (_, index) => `line ${index}`));
    expect(hub.requests.length).toBeLessThan(50);
    expect(hub.budget.dropped).toBe(0);
  });

  it("when the hub refuses a batch with 409, then the job is taken back and its other lines are forgotten, not counted as dropped", async () => {
    const hub = standIn(async () => {
      throw new LeaseLostError("logs", job.id, "not running", "cancelled");
    });
    hub.log.write("warn", "first");

    await hub.log.close(Date.now() + 5000);

    expect(hub.takenBack).toMatchObject([{ jobStatus: "cancelled" }]);
    expect(hub.budget.dropped).toBe(0);
  });

  it("when the hub stays unreachable past the close deadline, then the unsent lines are dropped and counted, and that is told once", async () => {
    const hub = standIn(async () => {
      throw new HubUnreachableError("logs", new Error("connection refused"));
    });
    hub.log.write("info", "one");
    hub.log.write("info", "two");

    await hub.log.close(Date.now() + 300);

    expect(hub.budget.dropped).toBe(2);
    expect(hub.events.filter((event) => event.type === "log_lines_dropped")).toHaveLength(1);
  });
});
