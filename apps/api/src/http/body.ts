/**
 * Request bodies: read raw (at most 1 MiB, else 413) and parsed here, so malformed JSON becomes the
 * contract's 422 `json_invalid` with the character position, as FastAPI reports it.
 */
import express, { type RequestHandler } from "express";
import { RequestValidationError } from "@hub/shared";
import { jsonErrorPosition } from "./json-error-position";

export const MAX_BODY_BYTES = 1024 * 1024;

/** Marker for "the request carried no body at all". */
export const NO_BODY = Symbol("no body");

export const FORM_CONTENT_TYPE = "application/x-www-form-urlencoded";

export function bodyParsers(): RequestHandler[] {
  const raw = express.raw({ type: () => true, limit: MAX_BODY_BYTES });
  const decode: RequestHandler = (req, _res, next) => {
    const buffer = Buffer.isBuffer(req.body) ? req.body : undefined;
    if (!buffer || buffer.length === 0) {
      req.body = NO_BODY;
      return next();
    }
    const text = buffer.toString("utf8");
    if (req.is(FORM_CONTENT_TYPE)) {
      req.body = Object.fromEntries(new URLSearchParams(text));
      return next();
    }
    try {
      req.body = JSON.parse(text);
      next();
    } catch (error) {
      next(new RequestValidationError([{ loc: ["body", jsonErrorPosition(text) ?? v8ErrorPosition(error, text)], msg: "JSON decode error", type: "json_invalid" }]));
    }
  };
  return [raw, decode];
}

/** Only reached if the scanner and V8 ever disagree on validity. */
function v8ErrorPosition(error: unknown, text: string): number {
  const match = /position (\d+)/.exec(error instanceof Error ? error.message : "");
  return match ? Number(match[1]) : text.length;
}
