import { describe, expect, it } from "vitest";
import { ConflictError, ForbiddenError, HttpError, NotFoundError, RateLimitedError, UnauthorizedError } from "./http-errors";

describe("the HttpError family", () => {
  it("when each is raised, then it carries the contract's status, detail and headers", () => {
    expect(new UnauthorizedError()).toMatchObject({ status: 401, detail: "Not authenticated", headers: { "WWW-Authenticate": "Bearer" } });
    expect(new UnauthorizedError("Invalid worker key", "WorkerApiKey").headers).toEqual({});
    expect(new ForbiddenError()).toMatchObject({ status: 403, detail: "Not enough permissions" });
    expect(new NotFoundError()).toMatchObject({ status: 404, detail: "Not Found" });
    expect(new ConflictError("already finished")).toMatchObject({ status: 409, detail: "already finished" });
    expect(new RateLimitedError("Too many attempts", 30)).toMatchObject({ status: 429, headers: { "Retry-After": "30" } });
  });

  it("when one is logged, then its name says which it is", () => {
    const error = new ConflictError("taken");

    expect(error).toBeInstanceOf(HttpError);
    expect(error.name).toBe("ConflictError");
    expect(String(error)).toBe("ConflictError: taken");
  });
});
