/** Log messages as the hub stores them, and the `::progress` lines of hub-worker's commands. */
import { describe, expect, it } from "vitest";
import { logLineOf, progressLine } from "./cli/run-command";
import { MAX_LOG_LINE_LENGTH } from "./hub-client";
import { logMessages } from "./job-log";

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
