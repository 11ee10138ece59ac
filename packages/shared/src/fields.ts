/**
 * Zod field builders that behave like the pydantic types the contract names, so every request
 * schema in the hub reads the same way and produces the same 422s.
 */
import { z } from "zod";
import { pydanticIssue } from "./validation";

/** A uuid in the lenient pydantic sense (any 8-4-4-4-12 hex string); 422 `uuid_parsing`. */
export const uuid = () => z.guid();

/** The range of an integer field that names none of its own (CONTRACT §6.15): PostgreSQL's `integer`. */
export const INT32_MIN = -(2 ** 31);
export const INT32_MAX = 2 ** 31 - 1;

/** An integer within −2³¹…2³¹−1 (outside: 422 `greater_than_equal` / `less_than_equal`, never a 500 from PostgreSQL). */
export const int32 = () => z.int().min(INT32_MIN).max(INT32_MAX);

/**
 * An integer that may arrive as a query-string: "12" → 12; "x" → `int_parsing`. Query values are
 * strings, so a plain `z.int()` would always fail there. Within −2³¹…2³¹−1 unless `range` narrows it.
 */
export function queryInt(range: { min: number; max: number } = { min: INT32_MIN, max: INT32_MAX }) {
  return z.preprocess((value) => (typeof value === "string" && /^[+-]?\d+$/.test(value.trim()) ? Number(value) : value), z.int().min(range.min).max(range.max));
}

const TRUE_WORDS = new Set(["true", "1", "yes", "on", "t", "y"]);
const FALSE_WORDS = new Set(["false", "0", "no", "off", "f", "n"]);

/** A boolean that may arrive as a query-string ("true"/"false"/"1"/"0"…, as pydantic accepts). */
export function queryBool() {
  return z.preprocess((value) => {
    if (typeof value !== "string") return value;
    const word = value.trim().toLowerCase();
    if (TRUE_WORDS.has(word)) return true;
    if (FALSE_WORDS.has(word)) return false;
    return value;
  }, z.boolean());
}

const ISO_DATETIME = /^\d{4}-\d{2}-\d{2}([Tt ]\d{2}:\d{2}(:\d{2}(\.\d{1,9})?)?([Zz]|[+-]\d{2}:?\d{2})?)?$/;

/**
 * An ISO 8601 date-time; values without an offset are taken as UTC. Parsed to a Date;
 * 422 `datetime_parsing` otherwise. `examples` are shown in OpenAPI (on the text a client sends:
 * JSON Schema drops examples of a transformed value's input).
 */
export function isoDateTime(examples?: string[]) {
  const text = examples ? z.string().meta({ examples }) : z.string();
  const parsed = text.transform((value, ctx) => {
    const trimmed = value.trim();
    const hasOffset = /([Zz]|[+-]\d{2}:?\d{2})$/.test(trimmed);
    const isDateOnly = /^\d{4}-\d{2}-\d{2}$/.test(trimmed);
    const date = ISO_DATETIME.test(trimmed)
      ? new Date(isDateOnly ? `${trimmed}T00:00:00Z` : hasOffset ? trimmed : `${trimmed.replace(" ", "T")}Z`)
      : new Date(Number.NaN);
    if (Number.isNaN(date.getTime())) {
      ctx.addIssue({
        code: "custom",
        input: value,
        ...pydanticIssue("datetime_parsing", "Input should be a valid datetime, invalid datetime format"),
      });
      return z.NEVER;
    }
    // Python's datetime (pydantic) spans years 1–9999; PostgreSQL refuses year 0 and JS writes
    // years past 9999 as "+010000-…", which it cannot read: outside that span is a 422, never a 500.
    const utcYear = date.getUTCFullYear();
    if (utcYear < 1 || utcYear > 9999) {
      ctx.addIssue({
        code: "custom",
        input: value,
        ...pydanticIssue("datetime_parsing", "Input should be a valid datetime, year is out of range"),
      });
      return z.NEVER;
    }
    if (!calendarDayExists(trimmed)) {
      ctx.addIssue({
        code: "custom",
        input: value,
        ...pydanticIssue("datetime_parsing", "Input should be a valid datetime, day value is outside expected range"),
      });
      return z.NEVER;
    }
    return date;
  });
  // The output is a Date, which JSON Schema cannot show: OpenAPI describes what is sent instead.
  return parsed.meta({ type: "string", format: "date-time" });
}

/** JS rolls 2026-02-30 over to March 2; pydantic refuses a day the month does not have. */
function calendarDayExists(isoText: string): boolean {
  const match = /^(\d{4})-(\d{2})-(\d{2})/.exec(isoText);
  if (!match) return false;
  const [year, month, day] = [Number(match[1]), Number(match[2]), Number(match[3])];
  const date = new Date(Date.UTC(year, month - 1, day));
  return date.getUTCMonth() === month - 1 && date.getUTCDate() === day;
}

/** A JSON object (pydantic `dict`): arrays and other values fail with `dict_type`. */
export const jsonObject = () => z.record(z.string(), z.unknown());

/**
 * A JSON object of at most `maxBytes()` bytes, measured as the UTF-8 length of its compact JSON
 * (the parsed value serialised again, CONTRACT §6.15): whitespace a client sends costs nothing,
 * and the measure is what the hub stores, copies into events and serves. Larger → `value_error`
 * naming the limit and the `setting` that sets it. `maxBytes` is read at each validation, so the
 * limit can come from configuration read after the schema was built.
 */
export const jsonObjectOfAtMost = (maxBytes: () => number, setting: string) =>
  jsonObject().superRefine((value, ctx) => {
    const limit = maxBytes();
    const json = JSON.stringify(value);
    // A UTF-16 code unit is at most 3 bytes of UTF-8: most values need no exact count.
    if (json.length * 3 <= limit || Buffer.byteLength(json, "utf8") <= limit) return;
    ctx.addIssue({
      code: "custom",
      input: undefined,
      ...pydanticIssue("value_error", `Value error, must be at most ${limit} bytes as compact JSON (${setting})`),
    });
  });
