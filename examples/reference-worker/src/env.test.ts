import { describe, expect, it } from "vitest";
import { loadWorkerEnv, WorkerEnvError } from "./env";

const base = { HUB_URL: "http://127.0.0.1:8000", HUB_WORKER_API_KEY: "key" };

describe("loadWorkerEnv --batch", () => {
  it("when --batch N is given, then batch mode is on with N", () => {
    expect(loadWorkerEnv(base, ["--batch", "20"]).batch).toBe(20);
    expect(loadWorkerEnv(base, ["--batch=5"]).batch).toBe(5);
    expect(loadWorkerEnv({ ...base, HUB_WORKER_BATCH: "7" }, []).batch).toBe(7);
  });

  it("when --batch is absent, then jobs are claimed one at a time", () => {
    expect(loadWorkerEnv(base, []).batch).toBeUndefined();
  });

  it("when --batch is missing its number or out of 1–100, then a configuration error names it", () => {
    for (const argv of [["--batch"], ["--batch", "0"], ["--batch", "101"], ["--batch", "x"]]) {
      expect(() => loadWorkerEnv(base, argv)).toThrow(WorkerEnvError);
      expect(() => loadWorkerEnv(base, argv)).toThrow(/--batch/);
    }
  });
});
