/**
 * Zod → FastAPI/pydantic v2 validation errors (CONTRACT §1).
 *
 * Every zod schema that validates a request is parsed through {@link validate}, which reports every
 * problem at once as `{loc, msg, type}` with pydantic's type names and messages. Schemas that need
 * a pydantic type zod has no code for (datetime_parsing, value_error, …) raise a `custom` issue
 * whose params carry `{ pydanticType, msg }` — see {@link pydanticIssue}.
 */
import type { z } from "zod";

export type Loc = (string | number)[];

export interface ValidationIssue {
  loc: Loc;
  msg: string;
  type: string;
}

export type ValidationResult<T> = { ok: true; value: T } | { ok: false; issues: ValidationIssue[] };

/** Parses `input` with `schema`; on failure returns every issue located under `locPrefix`. */
export function validate<S extends z.ZodType>(schema: S, input: unknown, locPrefix: Loc): ValidationResult<z.output<S>> {
  const result = schema.safeParse(input, { reportInput: true });
  if (result.success) return { ok: true, value: result.data };
  return { ok: false, issues: result.error.issues.flatMap((issue) => toPydantic(issue, locPrefix)) };
}

/** Params for a zod `custom` issue that should surface with a specific pydantic type. */
export function pydanticIssue(pydanticType: string, msg: string): { params: { pydanticType: string; msg: string } } {
  return { params: { pydanticType, msg } };
}

const TYPE_NAMES: Record<string, { type: string; msg: string }> = {
  string: { type: "string_type", msg: "Input should be a valid string" },
  int: { type: "int_type", msg: "Input should be a valid integer" },
  // The hub's numbers are all integers (z.int() reports "number" for non-numbers).
  number: { type: "int_type", msg: "Input should be a valid integer" },
  boolean: { type: "bool_type", msg: "Input should be a valid boolean" },
  object: { type: "dict_type", msg: "Input should be a valid dictionary" },
  record: { type: "dict_type", msg: "Input should be a valid dictionary" },
  array: { type: "list_type", msg: "Input should be a valid list" },
  date: { type: "datetime_type", msg: "Input should be a valid datetime" },
};

function plural(n: number, word: string): string {
  return `${n} ${word}${n === 1 ? "" : "s"}`;
}

function formatChoices(values: readonly unknown[]): string {
  const quoted = values.map((v) => `'${String(v)}'`);
  if (quoted.length <= 1) return quoted.join("");
  return `${quoted.slice(0, -1).join(", ")} or ${quoted[quoted.length - 1]}`;
}

/** zod reports a regex as "/^…$/flags"; pydantic shows only the pattern. */
function patternSource(pattern: string | undefined): string {
  if (!pattern) return "";
  const match = /^\/(.*)\/[a-z]*$/s.exec(pattern);
  return match?.[1] ?? pattern;
}

const EXTRA_FORBIDDEN = { type: "extra_forbidden", msg: "Extra inputs are not permitted" } as const;

/**
 * One zod issue as pydantic reports it. Unknown keys of a strict object are one zod issue but one
 * pydantic error per key, each located at the key (`["query","statuss"]`).
 */
function toPydantic(issue: z.core.$ZodIssue, locPrefix: Loc): ValidationIssue[] {
  const loc: Loc = [...locPrefix, ...issue.path.map((p) => (typeof p === "number" ? p : String(p)))];
  if (issue.code === "unrecognized_keys") {
    return issue.keys.map((key) => ({ loc: [...loc, key], msg: EXTRA_FORBIDDEN.msg, type: EXTRA_FORBIDDEN.type }));
  }
  const { type, msg } = describe(issue);
  return [{ loc, msg, type }];
}

function describe(issue: z.core.$ZodIssue): { type: string; msg: string } {
  switch (issue.code) {
    case "invalid_type": {
      if (issue.input === undefined) return { type: "missing", msg: "Field required" };
      if (issue.expected === "int" || issue.expected === "number") {
        if (typeof issue.input === "string") {
          return { type: "int_parsing", msg: "Input should be a valid integer, unable to parse string as an integer" };
        }
        if (typeof issue.input === "number" && Number.isFinite(issue.input)) {
          return { type: "int_from_float", msg: "Input should be a valid integer, got a number with a fractional part" };
        }
      }
      if (issue.expected === "boolean" && typeof issue.input === "string") {
        return { type: "bool_parsing", msg: "Input should be a valid boolean, unable to interpret input" };
      }
      return TYPE_NAMES[issue.expected] ?? { type: `${issue.expected}_type`, msg: `Input should be a valid ${issue.expected}` };
    }
    case "too_small": {
      const min = Number(issue.minimum);
      if (issue.origin === "string") {
        return { type: "string_too_short", msg: `String should have at least ${plural(min, "character")}` };
      }
      if (issue.origin === "array" || issue.origin === "set") {
        return { type: "too_short", msg: `List should have at least ${plural(min, "item")} after validation` };
      }
      return issue.inclusive
        ? { type: "greater_than_equal", msg: `Input should be greater than or equal to ${min}` }
        : { type: "greater_than", msg: `Input should be greater than ${min}` };
    }
    case "too_big": {
      const max = Number(issue.maximum);
      if (issue.origin === "string") {
        return { type: "string_too_long", msg: `String should have at most ${plural(max, "character")}` };
      }
      if (issue.origin === "array" || issue.origin === "set") {
        return { type: "too_long", msg: `List should have at most ${plural(max, "item")} after validation` };
      }
      return issue.inclusive
        ? { type: "less_than_equal", msg: `Input should be less than or equal to ${max}` }
        : { type: "less_than", msg: `Input should be less than ${max}` };
    }
    case "invalid_format": {
      switch (issue.format) {
        case "uuid":
        case "guid":
          return { type: "uuid_parsing", msg: "Input should be a valid UUID" };
        case "email":
          return { type: "value_error", msg: "value is not a valid email address: An email address must have an @-sign and a valid domain." };
        case "regex":
          return {
            type: "string_pattern_mismatch",
            msg: `String should match pattern '${patternSource((issue as { pattern?: string }).pattern)}'`,
          };
        case "datetime":
        case "date":
          return { type: "datetime_parsing", msg: "Input should be a valid datetime" };
        default:
          return { type: "value_error", msg: `Value error, invalid ${issue.format}` };
      }
    }
    case "invalid_value":
      if (issue.input === undefined) return { type: "missing", msg: "Field required" };
      return { type: "enum", msg: `Input should be ${formatChoices(issue.values)}` };
    case "custom": {
      const params = issue.params as { pydanticType?: string; msg?: string } | undefined;
      if (params?.pydanticType && params.msg) return { type: params.pydanticType, msg: params.msg };
      return { type: "value_error", msg: `Value error, ${issue.message}` };
    }
    case "invalid_union":
      return { type: "union_tag_invalid", msg: issue.message };
    case "not_multiple_of":
      return { type: "multiple_of", msg: `Input should be a multiple of ${String(issue.divisor)}` };
    case "unrecognized_keys":
      return EXTRA_FORBIDDEN;
    case "invalid_key":
    case "invalid_element":
      return { type: "value_error", msg: `Value error, ${issue.message}` };
    default: {
      const exhaustive: never = issue;
      return { type: "value_error", msg: String(exhaustive) };
    }
  }
}

/** Most bytes of a 422 body (CONTRACT §6.15: this bounds "every problem at once"). */
export const VALIDATION_BODY_MAX_BYTES = 64 * 1024;
/** Longest string taken from the input that a 422 repeats, in `msg` or `loc`. */
export const ECHOED_INPUT_MAX_CHARS = 100;

const MORE_PROBLEMS: ValidationIssue = { loc: ["body"], msg: "More problems not shown", type: "value_error" };

/** `text` cut to {@link ECHOED_INPUT_MAX_CHARS} characters, the last being `…`, when longer. */
export function cutEchoedInput(text: string): string {
  const chars = [...text];
  return chars.length <= ECHOED_INPUT_MAX_CHARS ? text : `${chars.slice(0, ECHOED_INPUT_MAX_CHARS - 1).join("")}…`;
}

/**
 * The `detail` of a 422 within {@link VALIDATION_BODY_MAX_BYTES}: every string in a `loc`, and
 * every quoted input in a `msg` (`'…'`, how messages quote what they were given), cut by
 * {@link cutEchoedInput}; problems in order until the next would pass the size, then
 * `More problems not shown` on `["body"]` ends the list.
 */
export function boundedValidationIssues(issues: ValidationIssue[]): ValidationIssue[] {
  const bounded = issues.map((issue) => ({
    loc: issue.loc.map((part) => (typeof part === "string" ? cutEchoedInput(part) : part)),
    msg: issue.msg.replace(/'([^']*)'/g, (_, quoted: string) => `'${cutEchoedInput(quoted)}'`),
    type: issue.type,
  }));
  // {"detail":[a,b,c]}: the envelope, then each item followed by a comma or the closing bracket.
  const sizes = bounded.map((issue) => Buffer.byteLength(JSON.stringify(issue), "utf8") + 1);
  const envelope = Buffer.byteLength('{"detail":[]}') - 1;
  if (envelope + sizes.reduce((sum, size) => sum + size, 0) <= VALIDATION_BODY_MAX_BYTES) return bounded;
  let used = envelope + Buffer.byteLength(JSON.stringify(MORE_PROBLEMS), "utf8") + 1;
  let shown = 0;
  while (shown < bounded.length && used + sizes[shown]! <= VALIDATION_BODY_MAX_BYTES) used += sizes[shown++]!;
  return [...bounded.slice(0, shown), MORE_PROBLEMS];
}
