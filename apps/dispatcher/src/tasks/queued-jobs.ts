/** The queued jobs PostgreSQL holds, read page by page: what the reconciler and the horizon pass walk. */
import { type Database, jobs } from "@hub/db";

const RECONCILE_PAGE = 1000;

/** Runs `handle` on each page of the queued jobs whose `available_at` lies in `window`; returns how many. */
export async function forEachQueuedPage(database: Database, window: jobs.AvailableWindow, handle: (page: jobs.JobRef[]) => Promise<void>): Promise<number> {
  let cursor: jobs.QueuedJobCursor | null = null;
  let seen = 0;
  for (;;) {
    const page = await jobs.listQueuedRefs(database.pool, window, cursor, RECONCILE_PAGE);
    if (page.length > 0) await handle(page);
    seen += page.length;
    if (page.length < RECONCILE_PAGE) return seen;
    const last = page[page.length - 1]!;
    cursor = { availableAt: last.availableAt, id: last.id };
  }
}
