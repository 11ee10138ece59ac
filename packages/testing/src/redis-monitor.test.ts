import { Redis } from "ioredis";
import { describe, expect, it } from "vitest";
import { monitorRedis, parseMonitorLine } from "./redis-monitor";

describe("monitorRedis", () => {
  it("when a line holds quoted and escaped arguments, then each comes back as the server saw it", () => {
    expect(parseMonitorLine('+1796189024.970034 [0 127.0.0.1:48568] "set" "a \\"b\\"" "x\\x01\\n"')).toEqual(["set", 'a "b"', "x\u0001\n"]);
    expect(parseMonitorLine("+OK")).toBeUndefined();
  });

  it("when commands run on another connection, then the monitor reports each of them", async () => {
    const redisUrl = process.env.REDIS_URL ?? "redis://127.0.0.1:6379";
    const key = `monitor-test:${process.pid}:${Date.now()}`;
    const seen: string[][] = [];
    const monitor = await monitorRedis(redisUrl, (args) => {
      if (args[1] === key) seen.push(args);
    });
    const redis = new Redis(redisUrl);
    try {
      for (let index = 0; index < 50; index++) await redis.exists(key);
      await redis.set(key, "value with space", "EX", 5);
      const deadline = Date.now() + 5000;
      while (seen.length < 51 && Date.now() < deadline) await new Promise((done) => setTimeout(done, 20));
      expect(seen.length).toBe(51);
      expect(seen.at(-1)).toEqual(["set", key, "value with space", "EX", "5"]);
    } finally {
      monitor.close();
      redis.disconnect();
    }
  });
});
