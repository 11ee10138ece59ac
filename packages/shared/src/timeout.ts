/**
 * Settles like `work`, or rejects after `timeoutMs` — whichever comes first. Redis commands wait
 * for a reconnect rather than fail, and a PostgreSQL connection can hang, so every dependency call
 * something waits for is bounded this way. The late outcome of a call that lost the race is
 * swallowed: no one is left to hear it, and it must not surface as an unhandled rejection.
 */
export async function settleWithin<T>(work: Promise<T>, timeoutMs: number, timeoutMessage = `timed out after ${timeoutMs} ms`): Promise<T> {
  let timer: NodeJS.Timeout | undefined;
  const timedOut = new Promise<never>((_, reject) => {
    timer = setTimeout(() => reject(new Error(timeoutMessage)), timeoutMs);
    timer.unref();
  });
  work.catch(() => undefined);
  try {
    return await Promise.race([work, timedOut]);
  } finally {
    clearTimeout(timer);
  }
}
