import { z } from "zod";
import { workers } from "@hub/db";
import { defineRoute } from "../http/route";

const SIGNALS_EXAMPLE =
  "retry: 2000\n: connected\n\n" +
  'event: cancel\ndata: {"job_id":"c2d4e6f8-1a3b-4c5d-9e7f-8a0b2c4d6e8f","attempt":1,"reason":"cancelled_by_user"}\n\n' +
  ": heartbeat\n\n";

/** Longest wait of POST /workers/me/offline for the worker's signals streams to be seen closed, and the pace of its checks. */
const OFFLINE_STREAM_SETTLE_MS = 1000;
const OFFLINE_STREAM_POLL_MS = 50;

/** A worker about itself (CONTRACT §6.12): live signals, and going offline on purpose. */
export const workerSelfRoutes = [
  defineRoute({
    method: "get",
    path: "/workers/me/signals",
    operationId: "streamWorkerSignals",
    summary: "Hear at once when a running job is taken from this worker (server-sent events)",
    description:
      "While open, `event: cancel` `{job_id, attempt, reason}` arrives within a second of the commit that took a job this worker runs from it: `cancelled_by_user` (a cancel, single or bulk), " +
      "`timeout`, `lease_expired`, `worker_unregistered` or `worker_key_rotated` (both sent before the stream ends). Deactivating an automation sends nothing. Signals carry no `id:` and are never replayed: " +
      "a worker that was not listening learns it from the 409 `{detail, status}` of its next call. Opening the stream marks the worker seen; keeping it open does not. " +
      "At most HUB_WORKER_MAX_STREAMS (64) streams per worker key over every API process; on a 429, work on without signals and retry after Retry-After.",
    tag: "worker protocol",
    auth: "worker",
    responses: {
      200: {
        description:
          "The stream, open until the worker leaves, its key stops being valid or the API shuts down. Messages: `event: cancel` and `:` comments (heartbeats)",
        contentType: "text/event-stream",
        schema: z.string(),
        example: SIGNALS_EXAMPLE,
      },
      429: { description: "Too many open streams for this worker key (HUB_WORKER_MAX_STREAMS); see Retry-After" },
    },
    handler: async ({ caller, ctx, req, res }) => {
      await ctx.workerSignals.serve(ctx, req, res, caller.worker);
      return { status: 200, streaming: true };
    },
  }),
  defineRoute({
    method: "post",
    path: "/workers/me/offline",
    operationId: "markWorkerOffline",
    summary: "Say this worker is stopping",
    description:
      "For a graceful stop, once drained (close the signals stream first). When none of this worker's signals streams is open on any API process, the worker becomes `stopped` at once " +
      "(`worker.status_changed`, only when it was `running`); otherwise it stays `running`. Running jobs are left alone. Unlike every other worker call, this one does not mark the worker seen.",
    tag: "worker protocol",
    auth: "worker",
    leavesWorkerUnseen: true,
    responses: { 204: { description: "Done (stopped, or left running while a signals stream is open)" } },
    handler: async ({ caller, ctx, req }) => {
      // A stream the worker closed just before this call may not have been seen ending yet (its
      // slot is freed when its process notices the connection close): give that a moment.
      const owner = `worker:${caller.worker.id}`;
      const settleBy = Date.now() + OFFLINE_STREAM_SETTLE_MS;
      let open = await ctx.streamSlots.openCount("worker_signals", owner);
      while (open > 0 && Date.now() < settleBy) {
        await new Promise((resolve) => setTimeout(resolve, OFFLINE_STREAM_POLL_MS));
        open = await ctx.streamSlots.openCount("worker_signals", owner);
      }
      if (open === 0 && (await workers.markStopped(ctx.database.pool, caller.worker))) ctx.auth.noteWorkerStopped(req);
      return { status: 204 };
    },
  }),
];
