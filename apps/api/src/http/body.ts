/**
 * Request bodies, read by each route once the caller is authenticated, so the answers come in the
 * contract's order (CONTRACT §6.1): 401/403, then 413 (over 1 MiB), 415 (not JSON), 422 (malformed
 * JSON, with the character position as FastAPI reports it, then schema validation).
 */
import express, { type Request, type Response } from "express";
import type { ValidationIssue } from "@hub/shared";
import { HttpError, RequestValidationError } from "./http-errors";
import { jsonSyntaxError } from "./json-error-position";

export const MAX_BODY_BYTES = 1024 * 1024;

/** Marker for "the request carried no body at all". */
export const NO_BODY = Symbol("no body");

export const FORM_CONTENT_TYPE = "application/x-www-form-urlencoded";

/**
 * Deepest nesting of arrays and objects a JSON body may have (pydantic-core's JSON parser stops
 * at 200 too). Deeper values would overflow the stack of JSON.stringify on their way into a
 * jsonb column: refused up front as malformed, at the bracket that goes too deep.
 */
export const MAX_JSON_DEPTH = 200;

/** 415: a body in a media type the hub does not read. */
export class UnsupportedMediaTypeError extends HttpError {
  constructor() {
    super(415, "Unsupported Media Type: send application/json");
  }
}

// Every media type is read raw (at most 1 MiB, else body-parser's 413); readRequestBody decides.
const readRaw = express.raw({ type: () => true, limit: MAX_BODY_BYTES });

/** `application/json` or any `application/*+json`; parameters (`; charset=utf-8`) and case ignored. */
export function isJsonMediaType(mediaType: string): boolean {
  return mediaType === "application/json" || /^application\/[!#$&^_.+\w-]+\+json$/.test(mediaType);
}

/** The media type of a Content-Type header, without parameters, lower-case. */
function mediaTypeOf(contentType: string): string {
  return (contentType.split(";")[0] ?? "").trim().toLowerCase();
}

/**
 * The request's body: {@link NO_BODY} when empty (never a 415), the decoded form when the route
 * takes the OAuth2 form (`acceptsForm`) and one was sent, else parsed JSON — also when no
 * Content-Type was sent. Throws 413, 415 or 422 `json_invalid`.
 */
export async function readRequestBody(req: Request, res: Response, acceptsForm: boolean): Promise<unknown> {
  await new Promise<void>((resolve, reject) => readRaw(req, res, (error?: unknown) => (error ? reject(error) : resolve())));
  const buffer: unknown = req.body;
  if (!Buffer.isBuffer(buffer) || buffer.length === 0) return NO_BODY;
  const contentType = req.headers["content-type"];
  const mediaType = contentType === undefined ? "application/json" : mediaTypeOf(contentType);
  const text = buffer.toString("utf8");
  if (acceptsForm && mediaType === FORM_CONTENT_TYPE) return Object.fromEntries(new URLSearchParams(text));
  if (!isJsonMediaType(mediaType)) throw new UnsupportedMediaTypeError();
  let parsed: unknown;
  try {
    parsed = JSON.parse(text) as unknown;
  } catch (error) {
    const syntax = jsonSyntaxError(text);
    const problem = syntax ? { loc: ["body", syntax.position], msg: syntax.msg } : { loc: ["body", v8ErrorPosition(error, text)], msg: "Invalid JSON" };
    throw new RequestValidationError([{ ...problem, type: "json_invalid" }]);
  }
  const tooDeep = excessiveNestingPosition(text, MAX_JSON_DEPTH);
  if (tooDeep !== undefined) {
    throw new RequestValidationError([{ loc: ["body", tooDeep], msg: `JSON decode error: nested deeper than ${MAX_JSON_DEPTH} levels`, type: "json_invalid" }]);
  }
  return parsed;
}

/**
 * The code-point position of the first `[` or `{` nested deeper than `maxDepth` in `text`, which
 * must be valid JSON; undefined when none is.
 */
function excessiveNestingPosition(text: string, maxDepth: number): number | undefined {
  let depth = 0;
  let inString = false;
  let codePoints = 0;
  for (let i = 0; i < text.length; i++, codePoints++) {
    const unit = text.charCodeAt(i);
    // The second half of a surrogate pair belongs to the code point already counted.
    if (unit >= 0xdc00 && unit <= 0xdfff && i > 0 && isHighSurrogate(text.charCodeAt(i - 1))) codePoints--;
    if (inString) {
      if (unit === 0x5c) {
        // An escaped character never ends the string; escapes are ASCII, one code point each.
        i++;
        codePoints++;
      } else if (unit === 0x22) inString = false;
    } else if (unit === 0x22) inString = true;
    else if (unit === 0x5b || unit === 0x7b) {
      depth++;
      if (depth > maxDepth) return codePoints;
    } else if (unit === 0x5d || unit === 0x7d) depth--;
  }
  return undefined;
}

function isHighSurrogate(unit: number): boolean {
  return unit >= 0xd800 && unit <= 0xdbff;
}

/** U+0000 (PostgreSQL text and jsonb cannot hold it) or half of a surrogate pair (not encodable as UTF-8). */
// eslint-disable-next-line no-control-regex -- matching NUL is the point
const UNSTORABLE_TEXT = /[\u0000\p{Cs}]/u;

/**
 * 422 issues for every string (object keys included) in a request's body, query or path that
 * PostgreSQL could not store: refused as input rather than failing with a 500 at the database.
 * `value` is at most {@link MAX_JSON_DEPTH} deep.
 */
export function unstorableTextIssues(value: unknown, loc: (string | number)[]): ValidationIssue[] {
  const issues: ValidationIssue[] = [];
  const visit = (current: unknown, at: (string | number)[]) => {
    if (typeof current === "string") {
      if (UNSTORABLE_TEXT.test(current)) issues.push(unstorableIssue(at));
    } else if (Array.isArray(current)) {
      current.forEach((item, index) => visit(item, [...at, index]));
    } else if (typeof current === "object" && current !== null) {
      for (const [key, item] of Object.entries(current)) {
        if (UNSTORABLE_TEXT.test(key)) issues.push(unstorableIssue([...at, key]));
        else visit(item, [...at, key]);
      }
    }
  };
  visit(value, loc);
  return issues;
}

function unstorableIssue(loc: (string | number)[]): ValidationIssue {
  return { loc, msg: "Value error, text must not contain NUL (U+0000) or unpaired surrogate characters", type: "value_error" };
}

/** Only reached if the scanner and V8 ever disagree on validity. */
function v8ErrorPosition(error: unknown, text: string): number {
  const match = /position (\d+)/.exec(error instanceof Error ? error.message : "");
  return match ? Number(match[1]) : text.length;
}
