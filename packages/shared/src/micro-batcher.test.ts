import { afterEach, beforeEach, describe, expect, it, vi } from "vitest";
import { MicroBatcher, type MicroBatcherOptions } from "./micro-batcher";

/** A batcher whose sends are recorded; each send settles when the test says so. */
function recordingBatcher(options: MicroBatcherOptions<number> = {}) {
  const sends: number[][] = [];
  const settle: Array<(error?: Error) => void> = [];
  const failures: number[][] = [];
  const drops: number[] = [];
  let ready = true;
  const batcher = new MicroBatcher<number>(
    (items) =>
      new Promise<void>((resolve, reject) => {
        sends.push(items);
        settle.push((error) => (error ? reject(error) : resolve()));
      }),
    () => ready,
    { onSendFailure: (_error, items) => failures.push(items), onDrop: (count) => drops.push(count), ...options },
  );
  return {
    batcher,
    sends,
    failures,
    drops,
    /** Settles the oldest unsettled send. */
    settleNext: (error?: Error) => settle.shift()!(error),
    setReady: (value: boolean) => (ready = value),
  };
}

beforeEach(() => {
  vi.useFakeTimers();
});
afterEach(() => {
  vi.useRealTimers();
});

describe("MicroBatcher", () => {
  it("when items arrive within the linger time, then they go out together in one send", async () => {
    const { batcher, sends } = recordingBatcher({ lingerMs: 2 });

    batcher.add([1]);
    batcher.add([2, 3]);
    expect(sends).toEqual([]);
    await vi.advanceTimersByTimeAsync(2);

    expect(sends).toEqual([[1, 2, 3]]);
  });

  it("when a full batch is held, then it is sent at once without waiting for the linger time", () => {
    const { batcher, sends } = recordingBatcher({ lingerMs: 1000, sendSize: 3 });

    batcher.add([1, 2, 3]);

    expect(sends).toEqual([[1, 2, 3]]);
  });

  it("when items arrive while a send is in flight, then they wait for it and go out as the next batch", async () => {
    const { batcher, sends, settleNext } = recordingBatcher({ lingerMs: 2 });
    batcher.add([1]);
    await vi.advanceTimersByTimeAsync(2);

    batcher.add([2]);
    batcher.add([3]);
    await vi.advanceTimersByTimeAsync(10);
    expect(sends).toEqual([[1]]);
    settleNext();
    await vi.advanceTimersByTimeAsync(2);

    expect(sends).toEqual([[1], [2, 3]]);
  });

  it("when several items keep arriving while sends are in flight, then the linger grows up to its bound, and it falls back once a send ends with at most one waiting", async () => {
    const { batcher, sends, settleNext } = recordingBatcher({ lingerMs: 2, maxLingerMs: 8 });
    batcher.add([1]);
    await vi.advanceTimersByTimeAsync(2);
    batcher.add([2, 3]);
    settleNext();
    await vi.advanceTimersByTimeAsync(0);
    expect(batcher.lingerNowMs).toBe(4);

    await vi.advanceTimersByTimeAsync(3);
    expect(sends).toEqual([[1]]);
    await vi.advanceTimersByTimeAsync(1);
    expect(sends).toEqual([[1], [2, 3]]);
    batcher.add([4, 5]);
    settleNext();
    await vi.advanceTimersByTimeAsync(0);
    expect(batcher.lingerNowMs).toBe(8);
    batcher.add([6]);
    await vi.advanceTimersByTimeAsync(8);
    expect(sends).toEqual([[1], [2, 3], [4, 5, 6]]);
    batcher.add([7]);
    settleNext();
    await vi.advanceTimersByTimeAsync(0);
    // One item waiting is a trickle, not load.
    expect(batcher.lingerNowMs).toBe(2);

    await vi.advanceTimersByTimeAsync(2);
    expect(sends).toEqual([[1], [2, 3], [4, 5, 6], [7]]);
  });

  it("when the target is not ready, then items are held up to the bound, the rest dropped, and the held ones sent once it is ready", async () => {
    const { batcher, sends, drops, setReady } = recordingBatcher({ lingerMs: 2, maxBuffered: 3, notReadyRetryMs: 100 });
    setReady(false);

    batcher.add([1, 2]);
    batcher.add([3, 4, 5]);
    await vi.advanceTimersByTimeAsync(500);
    expect(sends).toEqual([]);
    expect(drops).toEqual([2]);
    expect(batcher.buffered).toBe(3);

    setReady(true);
    await vi.advanceTimersByTimeAsync(100);
    expect(sends).toEqual([[1, 2, 3]]);
  });

  it("when a send hangs past its timeout, then its items are reported lost and the next batch is sent", async () => {
    const { batcher, sends, failures } = recordingBatcher({ lingerMs: 2, sendTimeoutMs: 1000 });
    batcher.add([1]);
    await vi.advanceTimersByTimeAsync(2);
    batcher.add([2]);

    await vi.advanceTimersByTimeAsync(1000);
    await vi.advanceTimersByTimeAsync(2);

    expect(failures).toEqual([[1]]);
    expect(sends).toEqual([[1], [2]]);
  });

  it("when a send fails, then its items are reported lost and later items still go out", async () => {
    const { batcher, sends, failures, settleNext } = recordingBatcher({ lingerMs: 2 });
    batcher.add([1]);
    await vi.advanceTimersByTimeAsync(2);

    settleNext(new Error("connection reset"));
    batcher.add([2]);
    await vi.advanceTimersByTimeAsync(2);

    expect(failures).toEqual([[1]]);
    expect(sends).toEqual([[1], [2]]);
  });

  it("when closed, then what is held is sent at once, and later items are dropped", async () => {
    const { batcher, sends, drops, settleNext } = recordingBatcher({ lingerMs: 1000 });
    batcher.add([1, 2]);

    const closing = batcher.close(5000);
    await vi.advanceTimersByTimeAsync(0);
    expect(sends).toEqual([[1, 2]]);
    settleNext();
    await closing;
    batcher.add([3]);

    expect(drops).toEqual([1]);
    expect(sends).toEqual([[1, 2]]);
  });

  it("when closing while the target stays down, then close gives up after its timeout and reports the held items dropped", async () => {
    const { batcher, sends, drops, setReady } = recordingBatcher({ lingerMs: 2, notReadyRetryMs: 100 });
    setReady(false);
    batcher.add([1, 2, 3]);

    const closing = batcher.close(1000);
    await vi.advanceTimersByTimeAsync(1100);
    await closing;

    expect(sends).toEqual([]);
    expect(drops).toEqual([3]);
  });
});
