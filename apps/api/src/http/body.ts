/**
 * Request bodies, read by each route once the caller is authenticated, so the answers come in the
 * contract's order (CONTRACT §6.1): 401/403, then 413 (over 1 MiB), 415 (not JSON), 422 (malformed
 * JSON, with the character position as FastAPI reports it, then schema validation).
 */
import express, { type Request, type Response } from "express";
import { HttpError, RequestValidationError } from "@hub/shared";
import { jsonErrorPosition } from "./json-error-position";

export const MAX_BODY_BYTES = 1024 * 1024;

/** Marker for "the request carried no body at all". */
export const NO_BODY = Symbol("no body");

export const FORM_CONTENT_TYPE = "application/x-www-form-urlencoded";

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
  try {
    return JSON.parse(text) as unknown;
  } catch (error) {
    throw new RequestValidationError([{ loc: ["body", jsonErrorPosition(text) ?? v8ErrorPosition(error, text)], msg: "JSON decode error", type: "json_invalid" }]);
  }
}

/** Only reached if the scanner and V8 ever disagree on validity. */
function v8ErrorPosition(error: unknown, text: string): number {
  const match = /position (\d+)/.exec(error instanceof Error ? error.message : "");
  return match ? Number(match[1]) : text.length;
}
