/**
 * What this process already read about a credential (a user behind a login token, a worker behind
 * its key), kept only while PostgreSQL can tell us the moment it may have changed.
 *
 * Reading the user or worker row would be one PostgreSQL transaction per request, for each of the
 * several authenticated calls a job takes. Deactivation and unregistration must still take effect at once
 * (CONTRACT §2, §3), so an entry is trusted only on the word of the `hub_credentials_changed`
 * channel (@hub/db `listenForHubNotifications`): every notification empties the cache, and while
 * the listening session is down nothing is cached at all. A read that started before a change and
 * finishes after its notification is not stored (the generation moved on), so a cache can never
 * hold what a committed change has made stale for longer than the notification takes to arrive
 * (well under a millisecond on one host; the request that made the change empties its own
 * process's cache before it answers).
 */

/** Most entries kept; beyond, the oldest is forgotten. */
const MAX_ENTRIES = 10_000;
/** An entry is read again after this long, whatever the channel says (a backstop, not the mechanism). */
const MAX_AGE_MS = 5 * 60_000;

export class CredentialCache<Value> {
  private readonly entries = new Map<string, { value: Value; storedAtMs: number }>();
  private generation = 0;
  private trusted = false;

  constructor(
    private readonly maxEntries = MAX_ENTRIES,
    private readonly maxAgeMs = MAX_AGE_MS,
  ) {}

  /** The session LISTENs: entries may be kept from now on. */
  startTrusting(): void {
    this.forgetAll();
    this.trusted = true;
  }

  /** The session is gone: changes would go unheard, so keep nothing until it LISTENs again. */
  stopTrusting(): void {
    this.trusted = false;
    this.forgetAll();
  }

  /** Something changed: every entry may be stale. */
  forgetAll(): void {
    this.generation += 1;
    this.entries.clear();
  }

  get(key: string, nowMs = Date.now()): Value | undefined {
    const entry = this.entries.get(key);
    if (!entry) return undefined;
    if (nowMs - entry.storedAtMs >= this.maxAgeMs) {
      this.entries.delete(key);
      return undefined;
    }
    return entry.value;
  }

  /**
   * Reads through the cache: `load` runs on a miss, and its result is kept only when the cache is
   * trusted and nothing changed while it ran. `null` (no such credential) is never kept.
   */
  async read(key: string, load: () => Promise<Value | null>): Promise<Value | null> {
    const cached = this.get(key);
    if (cached !== undefined) return cached;
    const generationAtStart = this.generation;
    const value = await load();
    if (value !== null && this.trusted && this.generation === generationAtStart) this.set(key, value);
    return value;
  }

  /** Replaces an entry's value (e.g. a worker's last-seen time this process just wrote), if still kept. */
  update(key: string, value: Value): void {
    const entry = this.entries.get(key);
    if (entry) entry.value = value;
  }

  private set(key: string, value: Value): void {
    if (this.entries.size >= this.maxEntries) {
      const oldest = this.entries.keys().next();
      if (!oldest.done) this.entries.delete(oldest.value);
    }
    this.entries.set(key, { value, storedAtMs: Date.now() });
  }
}
