import { describe, expect, it } from "vitest";
import { z } from "zod";
import { isoDateTime, jsonObject, queryBool, queryInt } from "./fields";
import { validate } from "./validation";

/** The value, or the pydantic issues, of one field named `value` in the query. */
const parse = (field: z.ZodType, value: unknown) => validate(z.object({ value: field }), { value }, ["query"]);

describe("queryInt", () => {
  it("when a query string holds an integer, then it is that number; anything else is int_parsing", () => {
    expect(parse(queryInt(), "12")).toEqual({ ok: true, value: { value: 12 } });
    expect(parse(queryInt(), " -3 ")).toEqual({ ok: true, value: { value: -3 } });
    expect(parse(queryInt(), "1.5")).toMatchObject({ ok: false, issues: [{ loc: ["query", "value"], type: "int_parsing" }] });
  });
});

describe("queryBool", () => {
  it.each([
    ["true", true],
    ["Yes", true],
    ["1", true],
    ["off", false],
    ["f", false],
  ])("when the query string is %s, then it reads %s", (text, expected) => {
    expect(parse(queryBool(), text)).toEqual({ ok: true, value: { value: expected } });
  });

  it("when the word is not one pydantic reads as a boolean, then the value is refused", () => {
    expect(parse(queryBool(), "maybe").ok).toBe(false);
  });
});

describe("isoDateTime", () => {
  it("when a time has no offset, then it is taken as UTC; a date alone is its midnight", () => {
    expect(parse(isoDateTime(), "2026-11-22T10:00:00")).toEqual({ ok: true, value: { value: new Date("2026-11-22T10:00:00Z") } });
    expect(parse(isoDateTime(), "2026-11-22T10:00:00+01:00")).toEqual({ ok: true, value: { value: new Date("2026-11-22T09:00:00Z") } });
    expect(parse(isoDateTime(), "2026-11-22")).toEqual({ ok: true, value: { value: new Date("2026-11-22T00:00:00Z") } });
  });

  it.each([
    ["2026-02-30", "Input should be a valid datetime, day value is outside expected range"],
    ["22/11/2026", "Input should be a valid datetime, invalid datetime format"],
    ["0000-01-01", "Input should be a valid datetime, year is out of range"],
  ])("when the text is %s, then datetime_parsing says: %s", (text, msg) => {
    expect(parse(isoDateTime(), text)).toEqual({ ok: false, issues: [{ loc: ["query", "value"], type: "datetime_parsing", msg }] });
  });
});

describe("jsonObject", () => {
  it("when the value is an array or a string, then it is dict_type; an object passes", () => {
    expect(parse(jsonObject(), { a: 1 })).toEqual({ ok: true, value: { value: { a: 1 } } });
    expect(parse(jsonObject(), [1])).toMatchObject({ ok: false, issues: [{ type: "dict_type" }] });
    expect(parse(jsonObject(), "x")).toMatchObject({ ok: false, issues: [{ type: "dict_type" }] });
  });
});
