/**
 * The credentials the hub mints for programs: worker keys (`whk_…`) and users' api keys
 * (`hub_…`). Each is a recognisable prefix (secret scanners find a leaked one) and 256 random
 * bits, base64url; only a SHA-256 digest is stored ({@link hashApiKey}).
 */
import { createHash, randomBytes } from "node:crypto";

/** Random bytes in every key: 256 bits, beyond any guessing. */
const SECRET_KEY_RANDOM_BYTES = 32;

/** `prefix` + base64url of 32 random bytes (43 characters). */
export function newSecretKey(prefix: string): string {
  return `${prefix}${randomBytes(SECRET_KEY_RANDOM_BYTES).toString("base64url")}`;
}

/**
 * SHA-256 of a worker key or a user's api key: keys carry 256 random bits, so a fast hash is the
 * right tool (a slow password hash guards guessable secrets; none of these can be guessed).
 */
export function hashApiKey(apiKey: string): string {
  return createHash("sha256").update(apiKey, "utf8").digest("hex");
}

/** What starts a worker's key (CONTRACT §2): sent as `X-Worker-Api-Key`, never as a bearer token. */
export const WORKER_API_KEY_PREFIX = "whk_";

/** What starts a user's api key (CONTRACT §6.10); a login token (a JWT) never does. */
export const USER_API_KEY_PREFIX = "hub_";

/** A well-formed user api key: anything else is refused without a database lookup. */
const USER_API_KEY_FORMAT = /^hub_[A-Za-z0-9_-]{43}$/;

/** Characters after `hub_` that lists show, so a leaked key can be found and revoked. */
export const USER_API_KEY_SHOWN_PREFIX_LENGTH = 8;

/** Whether a bearer credential is meant as a user api key (well-formed or not). */
export function isUserApiKeyCredential(credential: string): boolean {
  return credential.startsWith(USER_API_KEY_PREFIX);
}

export function isWellFormedUserApiKey(credential: string): boolean {
  return USER_API_KEY_FORMAT.test(credential);
}

/** The part of a key lists show: the first 8 characters after `hub_`. */
export function shownPrefixOf(key: string): string {
  return key.slice(USER_API_KEY_PREFIX.length, USER_API_KEY_PREFIX.length + USER_API_KEY_SHOWN_PREFIX_LENGTH);
}
