import { describe, expect, it } from "vitest";
import { z } from "zod";
import { validate } from "@hub/shared";
import { passwordField } from "./password-rules";

const LOC = ["body", "password"];

describe("the rules of a new password", () => {
  it("when a request's password field is empty or over 72 bytes, then the pydantic issues say so", () => {
    expect(validate(passwordField(1), "", LOC)).toEqual({
      ok: false,
      issues: [{ loc: LOC, msg: "String should have at least 1 character", type: "string_too_short" }],
    });
    expect(validate(passwordField(1), "€".repeat(25), LOC)).toEqual({
      ok: false,
      issues: [{ loc: LOC, msg: "String should have at most 72 bytes in UTF-8", type: "string_too_long" }],
    });
  });

  it("when the minimum is 12, then 11 characters are refused and 12 accepted, counted in code points, not UTF-16 units", () => {
    expect(validate(passwordField(12), "a".repeat(11), LOC)).toEqual({
      ok: false,
      issues: [{ loc: LOC, msg: "String should have at least 12 characters", type: "string_too_short" }],
    });
    // 11 emoji are 22 UTF-16 units and 44 bytes: still 11 characters.
    expect(validate(passwordField(12), "🔑".repeat(11), LOC)).toMatchObject({ ok: false, issues: [{ type: "string_too_short" }] });
    expect(validate(passwordField(12), "🔑".repeat(12), LOC)).toEqual({ ok: true, value: "🔑".repeat(12) });
    expect(validate(passwordField(12), "a".repeat(72), LOC)).toEqual({ ok: true, value: "a".repeat(72) });
  });

  it("when the schema is rendered as JSON Schema, then it declares the configured minLength", () => {
    expect(z.toJSONSchema(passwordField(12))).toMatchObject({ type: "string", minLength: 12 });
  });
});
