/**
 * GET /jobs's context filters (CONTRACT §6.14): `context.<name>=<value>` or, as OpenAPI's
 * `deepObject` style sends it, `context[<name>]=<value>`. Each keeps the jobs whose context has the
 * top-level key `<name>` with the string `<value>`; up to {@link CONTEXT_FILTERS_MAX}, and-ed.
 */
import type { jobs } from "@hub/db";
import type { ValidationIssue } from "@hub/shared";
import { unstorableTextIssues } from "../http/body";
import type { PatternQuery } from "../http/route";

/** Most context filters one request takes: a sixth is a 422 on `["query"]`. */
export const CONTEXT_FILTERS_MAX = 5;
/** Longest `<name>`, in characters (code points, as pydantic counts). */
export const CONTEXT_FILTER_NAME_MAX_CHARS = 100;

const PARAMETER = "context";
const DOTTED_PREFIX = `${PARAMETER}.`;
const BRACKETED = /^context\[(.*)\]$/s;

/** `<name>` of a context filter parameter, or undefined when `key` is none. */
function nameOf(key: string): string | undefined {
  if (key.startsWith(DOTTED_PREFIX)) return key.slice(DOTTED_PREFIX.length);
  return BRACKETED.exec(key)?.[1];
}

function issuesOf(name: string, value: string): ValidationIssue[] {
  // The contract locates both forms' problems at the dotted name.
  const loc = ["query", `${DOTTED_PREFIX}${name}`];
  const chars = [...name].length;
  if (chars < 1) return [{ loc, msg: "String should have at least 1 character", type: "string_too_short" }];
  if (chars > CONTEXT_FILTER_NAME_MAX_CHARS) {
    return [{ loc, msg: `String should have at most ${CONTEXT_FILTER_NAME_MAX_CHARS} characters`, type: "string_too_long" }];
  }
  return [...unstorableTextIssues(name, loc), ...unstorableTextIssues(value, loc)].slice(0, 1);
}

/** The `context` pattern parameter of GET /jobs: its value is the list of {@link jobs.ContextFilter}s (absent when none). */
export const contextFilterQuery: PatternQuery = {
  name: PARAMETER,
  claims: (key) => nameOf(key) !== undefined,
  parse(parameters) {
    const filters: jobs.ContextFilter[] = [];
    const issues: ValidationIssue[] = [];
    for (const [key, value] of parameters) {
      const name = nameOf(key)!;
      const problems = issuesOf(name, value);
      if (problems.length > 0) issues.push(...problems);
      else filters.push({ name, value });
    }
    if (parameters.length > CONTEXT_FILTERS_MAX) {
      issues.push({
        loc: ["query"],
        msg: `Value error, at most ${CONTEXT_FILTERS_MAX} context filters (context.<name>=<value>), got ${parameters.length}`,
        type: "value_error",
      });
    }
    if (issues.length > 0) return { ok: false, issues };
    return { ok: true, value: filters.length > 0 ? filters : undefined };
  },
};
