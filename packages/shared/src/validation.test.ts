import { describe, expect, it } from "vitest";
import { z } from "zod";
import { boundedValidationIssues, validate, VALIDATION_BODY_MAX_BYTES, type ValidationIssue } from "./validation";

describe("validate", () => {
  it("when a strict object gets unknown keys, then each is one extra_forbidden issue at its own key, beside the other problems", () => {
    const result = validate(z.strictObject({ limit: z.int() }), { limit: "x", statuss: "failed", foo: "1" }, ["query"]);

    expect(result).toEqual({
      ok: false,
      issues: expect.arrayContaining([
        { loc: ["query", "limit"], type: "int_parsing", msg: "Input should be a valid integer, unable to parse string as an integer" },
        { loc: ["query", "statuss"], type: "extra_forbidden", msg: "Extra inputs are not permitted" },
        { loc: ["query", "foo"], type: "extra_forbidden", msg: "Extra inputs are not permitted" },
      ]),
    });
    expect(result.ok ? [] : result.issues).toHaveLength(3);
  });
});

const issueAt = (i: number): ValidationIssue => ({ loc: ["body", "items", i, "name"], msg: "Field required", type: "missing" });

describe("boundedValidationIssues", () => {
  it("when every problem fits in 64 KiB, then all are listed as they are", () => {
    const issues = Array.from({ length: 100 }, (_, i) => issueAt(i));

    expect(boundedValidationIssues(issues)).toEqual(issues);
  });

  it("when the problems would pass 64 KiB, then they are listed in order up to the limit and 'More problems not shown' ends the list", () => {
    const issues = Array.from({ length: 5000 }, (_, i) => issueAt(i));

    const shown = boundedValidationIssues(issues);

    expect(Buffer.byteLength(JSON.stringify({ detail: shown }))).toBeLessThanOrEqual(VALIDATION_BODY_MAX_BYTES);
    expect(shown.at(-1)).toEqual({ loc: ["body"], msg: "More problems not shown", type: "value_error" });
    expect(shown.slice(0, -1)).toEqual(issues.slice(0, shown.length - 1));
    // Nothing more would have fitted.
    expect(Buffer.byteLength(JSON.stringify({ detail: [...shown, issueAt(shown.length)] }))).toBeGreaterThan(VALIDATION_BODY_MAX_BYTES);
  });

  it("when a loc element or a quoted input in msg is longer than 100 characters, then it is cut to 100 ending with …", () => {
    const long = "x".repeat(5000);

    const [shown] = boundedValidationIssues([{ loc: ["query", long], msg: `Value error, '${long}' cannot be a parameter name`, type: "value_error" }]);

    expect(shown!.loc).toEqual(["query", `${"x".repeat(99)}…`]);
    expect(shown!.msg).toBe(`Value error, '${"x".repeat(99)}…' cannot be a parameter name`);
  });
});
