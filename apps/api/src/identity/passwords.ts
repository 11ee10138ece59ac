/**
 * Password hashing (bcrypt). bcrypt reads at most 72 bytes of its input and silently ignores the
 * rest, so the hub refuses longer passwords instead of storing a hash that a truncated guess
 * would also match (CONTRACT §3 "User").
 */
import bcrypt from "bcrypt";
import { randomBytes } from "node:crypto";

/** bcrypt's input limit, in UTF-8 bytes. */
export const PASSWORD_MAX_BYTES = 72;

/**
 * Cost 10 ≈ 60 ms per hash or compare on this 2-core machine (measured 2026-11-22): slow enough to
 * make offline guessing expensive, fast enough that logins do not queue behind each other.
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

/** The bcrypt hash of `password`; throws {@link PasswordTooLongError} rather than truncate it. */
export async function hashPassword(password: string): Promise<string> {
  if (!isHashablePassword(password)) throw new PasswordTooLongError();
  return bcrypt.hash(password, BCRYPT_COST);
}

let dummyHash: Promise<string> | undefined;

/** A hash no password matches, at the same cost as real ones; made once per process. */
function getDummyHash(): Promise<string> {
  dummyHash ??= bcrypt.hash(randomBytes(32).toString("base64url"), BCRYPT_COST);
  return dummyHash;
}

/**
 * Whether `password` matches `storedHash`. Pass `null` for an unknown account: a compare against a
 * dummy hash is still spent, so response time does not reveal which e-mails exist.
 */
export async function verifyPassword(password: string, storedHash: string | null): Promise<boolean> {
  if (storedHash === null || !isHashablePassword(password)) {
    // A password bcrypt would truncate can never match a stored one: spend the same time, answer no.
    await bcrypt.compare(password.slice(0, PASSWORD_MAX_BYTES) || "-", await getDummyHash());
    return false;
  }
  return bcrypt.compare(password, storedHash);
}

/** Computes the dummy hash ahead of the first failed login (called at start-up). */
export async function warmUpPasswordHashing(): Promise<void> {
  await getDummyHash();
}
