import { describe, expect, it } from "vitest";
import { z } from "zod";
import { validate } from "./validation";

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
