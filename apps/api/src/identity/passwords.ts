/**
 * Password hashing (bcrypt). bcrypt reads at most 72 bytes of its input and silently ignores the
 * rest, so the hub refuses longer passwords instead of storing a hash that a truncated guess
 * would also match (CONTRACT §3 "User").
 */
import bcrypt from "bcrypt";
import { randomBytes } from "node:crypto";
import { availableParallelism } from "node:os";

/** bcrypt's input limit, in UTF-8 bytes. */
export const PASSWORD_MAX_BYTES = 72;

/**
 * Cost 10: tens of milliseconds per hash or compare on a small server core, slow enough to make
 * offline guessing expensive, fast enough that logins do not queue behind each other.
 * bcrypt runs on libuv's thread pool, so it never blocks the event loop.
 */
export const BCRYPT_COST = 10;

/** Whether bcrypt would use every byte of `password` (and it is not empty). */
export function isHashablePassword(password: string): boolean {
  const bytes = Buffer.byteLength(password, "utf8");
  return bytes >= 1 && bytes <= PASSWORD_MAX_BYTES;
}

export class PasswordTooLongError extends Error {
  constructor() {
    super(`password must be 1–${PASSWORD_MAX_BYTES} bytes in UTF-8`);
    this.name = "PasswordTooLongError";
  }
}

/** A login waited longer than it may for a hashing slot (the caller answers 503 with Retry-After). */
export class PasswordHashingBusyError extends Error {
  constructor() {
    super("every password hashing slot stayed busy");
    this.name = "PasswordHashingBusyError";
  }
}

/**
 * At most `limit` holders at once; the others wait in arrival order, each for at most its own
 * `maxWaitMs` when it gives one (then {@link PasswordHashingBusyError}), else as long as it takes.
 */
export class HashingSlots {
  private busy = 0;
  private readonly waiting: { grant(): void }[] = [];

  constructor(readonly limit: number) {}

  async run<T>(work: () => Promise<T>, maxWaitMs?: number): Promise<T> {
    await this.acquire(maxWaitMs);
    try {
      return await work();
    } finally {
      this.release();
    }
  }

  private acquire(maxWaitMs: number | undefined): Promise<void> {
    if (this.busy < this.limit) {
      this.busy += 1;
      return Promise.resolve();
    }
    return new Promise<void>((resolve, reject) => {
      let timer: NodeJS.Timeout | undefined;
      const waiter = {
        grant: () => {
          clearTimeout(timer);
          resolve();
        },
      };
      if (maxWaitMs !== undefined) {
        timer = setTimeout(() => {
          this.waiting.splice(this.waiting.indexOf(waiter), 1);
          reject(new PasswordHashingBusyError());
        }, maxWaitMs);
      }
      this.waiting.push(waiter);
    });
  }

  private release(): void {
    // The slot passes straight to the next waiter: `busy` stays as it is.
    const next = this.waiting.shift();
    if (next) next.grant();
    else this.busy -= 1;
  }
}

/**
 * How many hashes may run at once (CONTRACT §6.15): two per core, and always one libuv thread
 * left for the file system and DNS work that shares the pool. Beyond that, hashes only queue in
 * libuv where nobody can see or bound the wait; queued here, a login can give up after
 * {@link LOGIN_HASH_MAX_WAIT_MS} and 48 junk logins cannot hold a real one for seconds.
 */
export function passwordHashingConcurrency(uvThreadpoolSize: number, parallelism = availableParallelism()): number {
  return Math.max(1, Math.min(2 * parallelism, uvThreadpoolSize - 1));
}

/** How long a login waits for a hashing slot before it answers 503. */
export const LOGIN_HASH_MAX_WAIT_MS = 2000;

/** libuv's default pool size, used until {@link configurePasswordHashing} says otherwise. */
const DEFAULT_UV_THREADPOOL_SIZE = 4;

let slots = new HashingSlots(passwordHashingConcurrency(DEFAULT_UV_THREADPOOL_SIZE));

/** Sizes the process's hashing slots from its `UV_THREADPOOL_SIZE` (called at start-up). */
export function configurePasswordHashing(uvThreadpoolSize: number): void {
  slots = new HashingSlots(passwordHashingConcurrency(uvThreadpoolSize));
}

/** The bcrypt hash of `password`; throws {@link PasswordTooLongError} rather than truncate it. Waits for a hashing slot. */
export async function hashPassword(password: string): Promise<string> {
  if (!isHashablePassword(password)) throw new PasswordTooLongError();
  return slots.run(() => bcrypt.hash(password, BCRYPT_COST));
}

let dummyHash: Promise<string> | undefined;

/** A hash no password matches, at the same cost as real ones; made once per process. */
function getDummyHash(): Promise<string> {
  dummyHash ??= bcrypt.hash(randomBytes(32).toString("base64url"), BCRYPT_COST);
  return dummyHash;
}

/**
 * Whether `password` matches `storedHash`. Pass `null` for an unknown account: a compare against a
 * dummy hash is still spent, so response time does not reveal which e-mails exist. With
 * `maxWaitMs`, throws {@link PasswordHashingBusyError} when no hashing slot frees up in time.
 */
export async function verifyPassword(password: string, storedHash: string | null, options: { maxWaitMs?: number } = {}): Promise<boolean> {
  if (storedHash === null || !isHashablePassword(password)) {
    const dummy = await getDummyHash();
    // A password bcrypt would truncate can never match a stored one: spend the same time, answer no.
    await slots.run(() => bcrypt.compare(password.slice(0, PASSWORD_MAX_BYTES) || "-", dummy), options.maxWaitMs);
    return false;
  }
  return slots.run(() => bcrypt.compare(password, storedHash), options.maxWaitMs);
}

/** Computes the dummy hash ahead of the first failed login (called at start-up). */
export async function warmUpPasswordHashing(): Promise<void> {
  await getDummyHash();
}
