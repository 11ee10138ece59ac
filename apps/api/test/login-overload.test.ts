/**
 * The bounded hashing queue (CONTRACT §6.15): with UV_THREADPOOL_SIZE=2 one password hash runs at a
 * time, so a burst of logins queues for it; a login that waits more than 2 s answers 503 with
 * Retry-After (hub_login_overloaded_total) instead of holding the thread pool.
 */
import { randomBytes } from "node:crypto";
import { describe, expect, it } from "vitest";
import { readMetric } from "@hub/testing";
import { useTestHub } from "./harness";

const hub = useTestHub({ UV_THREADPOOL_SIZE: "2" });

describe("the hashing queue", () => {
  it("when 100 logins arrive at once and one hash runs at a time, then those that would wait over 2 s answer 503 with Retry-After, the rest 401", async () => {
    const before = await readMetric(`${hub.api.url}/metrics`, "hub_login_overloaded_total");

    // Unknown e-mails, one each: no throttle refuses them, each costs one (dummy) bcrypt compare.
    const answers = await Promise.all(
      Array.from({ length: 100 }, () => hub.client.post("/identity/token", { email: `junk-${randomBytes(6).toString("hex")}@hub.test`, password: "guess" })),
    );

    const overloaded = answers.filter((answer) => answer.status === 503);
    expect(answers.every((answer) => answer.status === 401 || answer.status === 503)).toBe(true);
    expect(overloaded.length).toBeGreaterThan(0);
    expect(answers.some((answer) => answer.status === 401)).toBe(true);
    expect(overloaded[0]!.body).toEqual({ detail: "Service temporarily unavailable" });
    expect(Number(overloaded[0]!.headers.get("retry-after"))).toBeGreaterThanOrEqual(1);
    expect(await readMetric(`${hub.api.url}/metrics`, "hub_login_overloaded_total")).toBe(before + overloaded.length);
  });
});
