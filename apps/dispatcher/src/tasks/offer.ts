/**
 * Offering: one BullMQ worker per shard consumes that shard's `dispatch` queue (each message a
 * batch of committed jobs) and puts each job in its automation's ready set. Every dispatcher
 * serves every shard, each worker on its own blocking connection.
 */
import { Worker as BullWorker } from "bullmq";
import { settleWithin } from "@hub/shared";
import { jobsOfDispatchPayload, type DispatchPayload, type SingleJobDispatchPayload } from "@hub/shared/dispatch";
import type { DispatcherContext } from "../config";
import { inOfferSpan } from "../job-tracing";

/**
 * How long stop() waits for each shard's BullMQ worker to close. A worker whose blocking read went
 * to a cluster master that was killed and came back can wait on it for good; its message in
 * flight, if any, is re-delivered by BullMQ's stalled check (and re-offered by the reconciler).
 */
const OFFER_WORKER_CLOSE_TIMEOUT_MS = 5000;

/**
 * The member of a BullMQ queue's marker set (`<prefix>:<queue>:marker`) that says "a job waits":
 * `Queue.add` puts it there, and a worker blocked in `BZPOPMIN` on the set wakes up. BullMQ's
 * `moveToActive` also puts it back after every job it activates (`addBaseMarkerIfNeeded`), so that
 * another worker looks for a next job. With one message in flight per dispatcher, the next job is
 * fetched by `moveToFinished` (`fetchNext`) anyway, and when the queue is empty that marker only
 * sends this worker into one more `BZPOPMIN` and one more empty `moveToActive`: 2 of the 6 round
 * trips of a message at low rates, where each message carries one job (bench/README.md).
 * The offer's pipeline removes it. A job added meanwhile is not missed: one added before the
 * removal is in the wait list, which `moveToFinished` reads next; one added after it puts its own
 * marker back. Another dispatcher blocked on the set has taken the marker already (Redis serves a
 * blocked `BZPOPMIN` when the script ends), so removing it costs that replica nothing either. A
 * worker that is closing does not fetch next, so it leaves the marker; one that starts closing
 * between the removal and the message's end leaves a job in the wait list without a marker, which
 * another dispatcher's blocking read finds when it times out (BullMQ's `drainDelay`, 5 s) and the
 * reconciler offers from PostgreSQL anyway.
 */
const BULLMQ_WAIT_MARKER = "0";

export function createOfferWorkers({ database, redis, keys, logger, settings, metrics, ready, shards }: DispatcherContext) {
  let offerWorkers: Array<BullWorker<DispatchPayload | SingleJobDispatchPayload>> = [];
  return {
    start(): void {
      // Only while one message at a time is in flight: with more, the next job is not always
      // fetched by the message that ends (BullMQ fetches next only within its concurrency).
      const clearWaitMarker = settings.offerConcurrency === 1;
      offerWorkers = shards.map((shard) => {
        const worker: BullWorker<DispatchPayload | SingleJobDispatchPayload> = new BullWorker<DispatchPayload | SingleJobDispatchPayload>(
          keys.dispatchQueue,
          async (message) => {
            // One message carries every job an API process committed within a couple of
            // milliseconds: all of them go to their ready sets in one pipeline.
            const batch = jobsOfDispatchPayload(message.id, message.data);
            // A closing worker does not fetch next (the marker then tells another dispatcher).
            const marker = clearWaitMarker && !worker.closing ? worker.keys.marker : undefined;
            // With tracing on, a span of the jobs' traces (../job-tracing.ts); off, the offer alone.
            await inOfferSpan(database.pool, logger, batch, () =>
              ready.offer(batch, marker ? { shard, add: (pipeline) => pipeline.zrem(marker, BULLMQ_WAIT_MARKER) } : undefined),
            );
            metrics.jobsOffered.inc({ path: "queue" }, batch.length);
          },
          {
            connection: redis,
            prefix: keys.bullPrefix(shard),
            concurrency: settings.offerConcurrency,
            // A killed replica's in-flight offers are re-delivered within seconds (and the reconciler
            // would re-offer them anyway).
            lockDuration: 10_000,
            stalledInterval: 5_000,
            maxStalledCount: 10,
          },
        );
        worker.on("error", (error) => logger.warn({ err: error, shard }, "dispatch queue worker error"));
        return worker;
      });
    },
    /** Waits for the offers in flight; unstarted ones stay in BullMQ for another replica. */
    async stop(): Promise<void> {
      const unclosed = (
        await Promise.all(
          offerWorkers.map((worker, shard) =>
            settleWithin(worker.close(), OFFER_WORKER_CLOSE_TIMEOUT_MS).then(
              () => null,
              () => shard,
            ),
          ),
        )
      ).filter((shard) => shard !== null);
      if (unclosed.length > 0)
        logger.warn({ shards: unclosed }, "dispatch queue workers did not close in time; leaving their messages to BullMQ's stalled check");
    },
  };
}
