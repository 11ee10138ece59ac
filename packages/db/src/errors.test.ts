import { describe, expect, it } from "vitest";
import { DrizzleQueryError } from "drizzle-orm";
import { isDatabaseUnavailable, isForeignKeyViolation, isUniqueViolation } from "./errors";

/** A `pg` DatabaseError as the driver builds it (code and constraint as own fields). */
function pgError(code: string, message = "server said no", constraint?: string): Error {
  return Object.assign(new Error(message), { code, constraint });
}

/** drizzle wraps the driver's error: the pg error is the cause. */
const wrapped = (cause: Error) => new DrizzleQueryError("select 1", [], cause);

describe("isDatabaseUnavailable", () => {
  it.each([
    ["57P01 terminating connection (pg_terminate_backend, fast shutdown)", pgError("57P01")],
    ["57P02 crash shutdown", pgError("57P02")],
    ["57P03 the database system is starting up", pgError("57P03")],
    ["08006 connection failure", pgError("08006")],
    ["53300 too many connections", pgError("53300")],
    ["a refused connection", Object.assign(new Error("connect ECONNREFUSED 127.0.0.1:1"), { code: "ECONNREFUSED" })],
    ["a reset connection", Object.assign(new Error("read ECONNRESET"), { code: "ECONNRESET" })],
    ["the pool's connection timeout", new Error("timeout exceeded when trying to connect")],
    ["a connection that ended mid-query", new Error("Connection terminated unexpectedly")],
    ["a connect timeout", new Error("Connection terminated due to connection timeout")],
  ])("when the error is %s, then the database is unavailable (also wrapped by drizzle)", (_what, error) => {
    expect(isDatabaseUnavailable(error)).toBe(true);
    expect(isDatabaseUnavailable(wrapped(error))).toBe(true);
  });

  it("when every address of a host refused (AggregateError), then the database is unavailable", () => {
    const refused = Object.assign(new Error("connect ECONNREFUSED ::1:5432"), { code: "ECONNREFUSED" });
    expect(isDatabaseUnavailable(new AggregateError([refused], "connect failed"))).toBe(true);
  });

  it.each([
    ["a unique violation", pgError("23505")],
    ["a syntax error", pgError("42601")],
    ["a serialization failure", pgError("40001")],
    ["a plain bug", new TypeError("cannot read properties of undefined")],
    ["a non-error", "oops"],
  ])("when the error is %s, then it is not an outage", (_what, error) => {
    expect(isDatabaseUnavailable(error)).toBe(false);
  });
});

describe("constraint helpers", () => {
  it("when a unique constraint refused a row through drizzle, then it is found by name", () => {
    const error = wrapped(pgError("23505", "duplicate key", "users_email_key"));
    expect(isUniqueViolation(error)).toBe(true);
    expect(isUniqueViolation(error, "users_email_key")).toBe(true);
    expect(isUniqueViolation(error, "another_key")).toBe(false);
    expect(isForeignKeyViolation(error)).toBe(false);
    expect(isForeignKeyViolation(wrapped(pgError("23503")))).toBe(true);
  });
});
