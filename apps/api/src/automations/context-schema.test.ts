import { describe, expect, it } from "vitest";
import { validate } from "@hub/shared";
import { contextJsonSchemaOf, jobContextSchemaOf } from "./context-schema";

const parameters = [
  { name: "city", description: "Where" },
  { name: "day", description: "" },
];

describe("context schema of an automation", () => {
  it("when derived from parameters, then each is a required string with its description and extra keys are allowed", () => {
    expect(contextJsonSchemaOf(parameters)).toEqual({
      type: "object",
      properties: { city: { type: "string", description: "Where" }, day: { type: "string", description: "" } },
      required: ["city", "day"],
      additionalProperties: true,
    });
  });

  it("when a context holds every parameter as a string and more keys, then it is valid and kept whole", () => {
    const context = { city: "Oslo", day: "Monday", note: { any: ["thing"] } };

    expect(validate(jobContextSchemaOf(parameters), context, ["body", "context"])).toEqual({ ok: true, value: context });
  });

  it("when a parameter is missing and another is not a string, then both are reported under body.context", () => {
    const result = validate(jobContextSchemaOf(parameters), { day: 3 }, ["body", "context"]);

    expect(result).toEqual({
      ok: false,
      issues: [
        { loc: ["body", "context", "city"], msg: "Field required", type: "missing" },
        { loc: ["body", "context", "day"], msg: "Input should be a valid string", type: "string_type" },
      ],
    });
  });

  it("when the context is not an object, then dict_type on the context itself", () => {
    const result = validate(jobContextSchemaOf([]), ["city"], ["body", "context"]);

    expect(result).toEqual({ ok: false, issues: [{ loc: ["body", "context"], msg: "Input should be a valid dictionary", type: "dict_type" }] });
  });
});
