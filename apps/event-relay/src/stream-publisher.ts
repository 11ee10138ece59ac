/**
 * Publishing a batch to the Redis stream: one `MULTI … EXEC` of `XADD`s, sent as one pipelined
 * write. The batch is in position order and reaches the stream in that order, all together or
 * (if EXEC is refused) not at all, which is what per-aggregate order rests on (../README.md).
 */
import { type HubEvent, events } from "@hub/db";
import { settleWithin, type RedisConnection } from "@hub/shared";
import { DependencyFailure } from "./outage-backoff";

export type StreamPublisher = (batch: readonly HubEvent[]) => Promise<void>;

export function createStreamPublisher(options: { redis: RedisConnection; stream: string; streamMaxLen: number; publishTimeoutMs: number }): StreamPublisher {
  const { redis, stream, streamMaxLen, publishTimeoutMs } = options;
  return async (batch) => {
    // Never queue commands on a disconnected client: a long outage would pile up stale batches.
    if (redis.status !== "ready") throw new DependencyFailure("redis", new Error(`connection is ${redis.status}`));
    const transaction = redis.multi();
    for (const event of batch) {
      transaction.xadd(
        stream,
        "MAXLEN",
        "~",
        streamMaxLen,
        "*",
        "id",
        event.id,
        "event_type",
        event.eventType,
        "aggregate_id",
        event.aggregateId,
        "data",
        JSON.stringify(events.toEventRecordJson(event)),
      );
    }
    try {
      const results = await settleWithin(transaction.exec(), publishTimeoutMs, `no answer within ${publishTimeoutMs} ms`);
      if (!results) throw new Error("MULTI was aborted");
      const commandError = results.find(([error]) => error)?.[0];
      if (commandError) throw commandError;
    } catch (error) {
      throw new DependencyFailure("redis", error);
    }
  };
}
