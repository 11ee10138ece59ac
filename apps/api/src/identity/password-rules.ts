/**
 * The rules a new password must meet (CONTRACT §6.11): at least `HUB_PASSWORD_MIN_LENGTH` Unicode
 * code points, at most 72 UTF-8 bytes (bcrypt's limit: longer would be silently cut). They apply
 * wherever a password is set — creating a user, changing or resetting a password, the
 * `reset-password` command, `HUB_ADMIN_PASSWORD` at start-up — never to a login, which only compares.
 */
import { z } from "zod";
import { pydanticIssue } from "@hub/shared";
import { PASSWORD_MAX_BYTES } from "./passwords";

/** The minimum when HUB_PASSWORD_MIN_LENGTH is unset (INTERFACE.md §8: "minimum length 1"). */
export const DEFAULT_PASSWORD_MIN_LENGTH = 1;

/** What a new password breaks of the rules, as 422 problems of its field; none when it is fine. */
export function passwordProblems(password: string, minLength: number): { type: string; msg: string }[] {
  const problems: { type: string; msg: string }[] = [];
  // Code points, not UTF-16 units: "🔑" is one character to whoever types it.
  if ([...password].length < minLength) {
    problems.push({ type: "string_too_short", msg: `String should have at least ${minLength} character${minLength === 1 ? "" : "s"}` });
  }
  if (Buffer.byteLength(password, "utf8") > PASSWORD_MAX_BYTES) {
    problems.push({ type: "string_too_long", msg: `String should have at most ${PASSWORD_MAX_BYTES} bytes in UTF-8` });
  }
  return problems;
}

/** A new password's field of a request body or of the configuration; `/openapi.json` shows its `minLength`. */
export function passwordField(minLength: number) {
  return z
    .string()
    .superRefine((password, ctx) => {
      for (const { type, msg } of passwordProblems(password, minLength)) {
        ctx.addIssue({ code: "custom", input: password, ...pydanticIssue(type, msg) });
      }
    })
    .meta({
      minLength,
      description: `At least ${minLength} character${minLength === 1 ? "" : "s"} (HUB_PASSWORD_MIN_LENGTH) and at most ${PASSWORD_MAX_BYTES} bytes in UTF-8 (never cut); kept only as a bcrypt hash`,
    });
}
