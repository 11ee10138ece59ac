import { describe, expect, it } from "vitest";
import { CredentialCache } from "./credential-cache";

const loadOnce = (value: string | null) => {
  let calls = 0;
  return {
    load: async () => {
      calls += 1;
      return value;
    },
    get calls() {
      return calls;
    },
  };
};

describe("CredentialCache", () => {
  it("keeps nothing until its change channel listens", async () => {
    const cache = new CredentialCache<string>();
    const loader = loadOnce("alice");
    await cache.read("u1", loader.load);
    await cache.read("u1", loader.load);
    expect(loader.calls).toBe(2);
    cache.startTrusting();
    await cache.read("u1", loader.load);
    await cache.read("u1", loader.load);
    expect(loader.calls).toBe(3);
  });

  it("forgets everything on a change and when the channel is lost, and keeps nothing while it is down", async () => {
    const cache = new CredentialCache<string>();
    cache.startTrusting();
    const loader = loadOnce("alice");
    await cache.read("u1", loader.load);
    cache.forgetAll();
    await cache.read("u1", loader.load);
    expect(loader.calls).toBe(2);
    cache.stopTrusting();
    await cache.read("u1", loader.load);
    await cache.read("u1", loader.load);
    expect(loader.calls).toBe(4);
  });

  it("does not keep a read that a change overtook (read before the change, stored after its notification)", async () => {
    const cache = new CredentialCache<string>();
    cache.startTrusting();
    let release!: () => void;
    const slowRead = cache.read("u1", () => new Promise<string>((resolve) => (release = () => resolve("active"))));
    cache.forgetAll(); // the deactivation's notification arrives while the read is in flight
    release();
    expect(await slowRead).toBe("active");
    expect(cache.get("u1")).toBeUndefined();
  });

  it("never keeps an unknown credential, and drops entries past their age or beyond its size", async () => {
    const cache = new CredentialCache<string>(2, 1_000);
    cache.startTrusting();
    await cache.read("missing", async () => null);
    expect(cache.get("missing")).toBeUndefined();
    await cache.read("a", async () => "A");
    await cache.read("b", async () => "B");
    await cache.read("c", async () => "C");
    expect(cache.get("a")).toBeUndefined();
    expect(cache.get("c")).toBe("C");
    expect(cache.get("c", Date.now() + 1_000)).toBeUndefined();
  });
});
