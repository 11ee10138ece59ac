import { describe, expect, it } from "vitest";
import { HubRequestError, HubUnreachableError } from "./errors";
import { parseRetryAfter } from "./hub-client";
import { nextBackoff } from "./timing";

describe("nextBackoff", () => {
  it("when calls keep failing, then the wait doubles from 200 ms and stays within 5 s (+20 % jitter)", () => {
    const unreachable = new HubUnreachableError("claim", new Error("ECONNREFUSED"));
    let waitMs = 0;
    const waits: number[] = [];
    for (let attempt = 0; attempt < 8; attempt += 1) waits.push((waitMs = nextBackoff(waitMs, unreachable)));
    expect(waits[0]).toBeGreaterThanOrEqual(200);
    expect(waits[0]).toBeLessThanOrEqual(240);
    expect(Math.max(...waits)).toBeLessThanOrEqual(6000);
    expect(waits.at(-1)).toBeGreaterThanOrEqual(5000);
  });

  it("when the hub answered 503 with Retry-After, then the wait is never shorter than it asked", () => {
    const unavailable = new HubRequestError("claim", 503, "Service temporarily unavailable", parseRetryAfter("2"));
    expect(nextBackoff(0, unavailable)).toBeGreaterThanOrEqual(2000);
  });
});

describe("parseRetryAfter", () => {
  it("when given seconds or an HTTP date, then it answers milliseconds from now; garbage is ignored", () => {
    const nowMs = Date.parse("2026-11-22T10:00:00Z");
    expect(parseRetryAfter("2", nowMs)).toBe(2000);
    expect(parseRetryAfter("Sun, 22 Nov 2026 10:00:05 GMT", nowMs)).toBe(5000);
    expect(parseRetryAfter("soon", nowMs)).toBeUndefined();
    expect(parseRetryAfter(null, nowMs)).toBeUndefined();
  });
});
