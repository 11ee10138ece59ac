/**
 * Baseline (b), raw BullMQ: the same creators add the same jobs to a BullMQ queue of their own
 * (unique name and prefix per run, obliterated afterwards) and one BullMQ worker in this process,
 * with as much concurrency as all simulated hub workers together, processes them as no-ops.
 * "Claimed" is when the processor starts; "completed" is BullMQ's `completed` event.
 */
import { performance } from "node:perf_hooks";
import { Queue, Worker } from "bullmq";
import type { Redis } from "ioredis";
import { createRedis } from "@hub/shared";
import type { JobTarget, PhaseTracker } from "../lib/load";

interface BenchPayload {
  automation: number;
  context: Record<string, unknown>;
}

export class BullmqTarget implements JobTarget {
  private readonly producer: Redis;
  private readonly consumer: Redis;
  private readonly queue: Queue<BenchPayload>;
  private worker: Worker<BenchPayload> | undefined;

  constructor(
    redisUrl: string,
    private readonly prefix: string,
    private readonly queueName: string,
  ) {
    this.producer = createRedis(redisUrl, "bench-bullmq-producer");
    this.consumer = createRedis(redisUrl, "bench-bullmq-worker");
    this.queue = new Queue<BenchPayload>(queueName, {
      connection: this.producer,
      prefix,
      defaultJobOptions: { removeOnComplete: true, removeOnFail: 1000 },
    });
  }

  startWorker(tracker: PhaseTracker, concurrency: number): void {
    this.worker = new Worker<BenchPayload>(
      this.queueName,
      async (job) => {
        tracker.current?.claimed(job.id!, performance.now());
      },
      { connection: this.consumer, prefix: this.prefix, concurrency },
    );
    this.worker.on("completed", (job) => tracker.current?.completed(job.id!, performance.now()));
    this.worker.on("failed", (_job, error) => tracker.current?.error("process", error));
  }

  async createJob(automation: number, context: Record<string, unknown>): Promise<string> {
    const job = await this.queue.add("noop", { automation, context });
    return job.id!;
  }

  async close(): Promise<void> {
    await this.worker?.close();
    await this.queue.obliterate({ force: true });
    await this.queue.close();
    this.producer.disconnect();
    this.consumer.disconnect();
  }
}
