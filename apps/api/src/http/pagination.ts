/**
 * Keyset pagination, the HTTP side (CONTRACT §6.2): the `limit` and `cursor` query parameters,
 * the cursor codec and the `Link: <…>; rel="next"` header. The SQL side is @hub/db `keysetPage`.
 *
 * A cursor is `base64url(JSON {v, at, id}) "." base64url(HMAC-SHA256)`, the MAC keyed by a key
 * derived from HUB_JWT_SECRET and computed over the list's route too. So a cursor is "ours" only
 * when this hub issued it for this list: garbage, a tampered position and a cursor of another
 * list all fail the MAC and answer 422 at ["query","cursor"]. A cursor holds only a position in
 * the list's order, never a filter: the same cursor with other filters continues from the same
 * place.
 */
import { createHmac, timingSafeEqual } from "node:crypto";
import { z } from "zod";
import type { KeysetPosition } from "@hub/db";
import { LIST_DEFAULT_LIMIT, LIST_MAX_LIMIT, queryInt, type ValidationIssue } from "@hub/shared";

/** Cursors we issue are ~120 characters; anything much longer is not one of ours. */
const CURSOR_MAX_LENGTH = 512;
/** Bumped when the payload changes shape: older cursors are then refused, never misread. */
const CURSOR_VERSION = 1;
const MAC_BYTES = 16;

/**
 * The `limit` and `cursor` query parameters every list takes; spread into its query schema:
 * `z.object({ status: …, ...pageQueryShape(100) })`.
 */
export function pageQueryShape(defaultLimit: number = LIST_DEFAULT_LIMIT) {
  return {
    limit: queryInt({ min: 1, max: LIST_MAX_LIMIT }).default(defaultLimit).describe(`Most items on this page (1–${LIST_MAX_LIMIT}, default ${defaultLimit})`),
    cursor: z.string().optional().describe('Where to continue: copied from the previous page\'s `Link: <…>; rel="next"` header; opaque'),
  };
}

/** How the Link header of a list response is described in the OpenAPI document. */
export const LINK_HEADER_DESCRIPTION =
  'Present exactly when more items follow: `<the same path and query with cursor=…>; rel="next"` (RFC 8288, a path-absolute URL).';

const cursorPayload = z.strictObject({
  v: z.literal(CURSOR_VERSION),
  at: z.iso.datetime(),
  id: z.guid(),
});

/** Issues and reads the cursors of every list. One per app, keyed from HUB_JWT_SECRET. */
export class CursorCodec {
  private readonly key: Buffer;

  constructor(secret: string) {
    // A key of its own (HMAC as a KDF): a cursor MAC can never be replayed as anything else.
    this.key = createHmac("sha256", secret).update("hub:list-cursor:v1").digest();
  }

  /** The cursor continuing `list` (the route, `GET /jobs`) after `position`. */
  encode(list: string, position: KeysetPosition): string {
    const payload = Buffer.from(JSON.stringify({ v: CURSOR_VERSION, at: position.createdAt.toISOString(), id: position.id })).toString("base64url");
    return `${payload}.${this.mac(list, payload).toString("base64url")}`;
  }

  /** The position a cursor of `list` names; undefined for anything this hub did not issue for it. */
  decode(list: string, cursor: string): KeysetPosition | undefined {
    if (cursor.length > CURSOR_MAX_LENGTH) return undefined;
    const [payload, mac, ...rest] = cursor.split(".");
    if (payload === undefined || mac === undefined || rest.length > 0) return undefined;
    const given = Buffer.from(mac, "base64url");
    // Canonical base64url only: a re-encoded MAC with other padding bits is not ours either.
    if (given.length !== MAC_BYTES || given.toString("base64url") !== mac) return undefined;
    if (!timingSafeEqual(given, this.mac(list, payload))) return undefined;
    let parsed: unknown;
    try {
      parsed = JSON.parse(Buffer.from(payload, "base64url").toString("utf8"));
    } catch {
      return undefined;
    }
    const result = cursorPayload.safeParse(parsed);
    if (!result.success) return undefined;
    return { createdAt: new Date(result.data.at), id: result.data.id.toLowerCase() };
  }

  private mac(list: string, payload: string): Buffer {
    return createHmac("sha256", this.key).update(`${list}\n${payload}`).digest().subarray(0, MAC_BYTES);
  }
}

/** The 422 issue of a cursor this hub did not issue for this list. */
export const foreignCursorIssue: ValidationIssue = {
  loc: ["query", "cursor"],
  msg: "Value error, not a cursor of this list: use the one from the previous page's Link header",
  type: "value_error",
};

/**
 * `Link` to the next page: the request's own path and query, with `cursor` set to the next
 * position (every other parameter kept as sent, `limit` included).
 */
export function nextPageLink(originalUrl: string, cursor: string): string {
  const queryStart = originalUrl.indexOf("?");
  const path = queryStart === -1 ? originalUrl : originalUrl.slice(0, queryStart);
  const query = new URLSearchParams(queryStart === -1 ? "" : originalUrl.slice(queryStart + 1));
  query.set("cursor", cursor);
  return `<${path}?${query.toString()}>; rel="next"`;
}

/** A list page as sent: its JSON text and where the next page starts (undefined: none follows). */
export interface SizedListPage {
  json: string;
  next: KeysetPosition | undefined;
}

/**
 * Serialises a list page within `maxBytes` of JSON (CONTRACT §6.15): items in order until the next
 * would pass the size, always at least one. When the page is cut short, the next page starts
 * after the last item sent, whose position is its `(created_at, id)`: every list is ordered by
 * those (@hub/db pagination), so a cut page and its `Link` still visit every item once.
 */
export function listPageWithin(items: unknown[], maxBytes: number, next: KeysetPosition | undefined): SizedListPage {
  // Nearly every page fits: one JSON.stringify of the whole page, as res.json would, which costs
  // less API CPU than serialising item by item; only a page that may not fit is cut item by item.
  const whole = JSON.stringify(items);
  if (whole.length * 3 <= maxBytes || Buffer.byteLength(whole, "utf8") <= maxBytes) return { json: whole, next };
  const parts: string[] = [];
  // `[`, then each item followed by `,` or `]`. UTF-8 takes at most 3 bytes per UTF-16 unit: until
  // that bound passes the limit, no byte needs counting.
  let upperBound = 1;
  let bytes: number | undefined;
  for (const item of items) {
    const part = JSON.stringify(item);
    upperBound += 3 * part.length + 1;
    if (bytes === undefined && upperBound > maxBytes) bytes = parts.reduce((sum, earlier) => sum + Buffer.byteLength(earlier, "utf8") + 1, 1);
    if (bytes !== undefined) {
      const partBytes = Buffer.byteLength(part, "utf8") + 1;
      if (parts.length > 0 && bytes + partBytes > maxBytes) return { json: `[${parts.join(",")}]`, next: positionOf(items[parts.length - 1]) };
      bytes += partBytes;
    }
    parts.push(part);
  }
  return { json: `[${parts.join(",")}]`, next };
}

/**
 * The one list ordered by a number rather than `(created_at, id)`: a job's log lines, by `seq`
 * (CONTRACT §6.12). Its cursor carries the seq in the position's time field (milliseconds since the
 * epoch: exact up to 8.64e15) beside the nil uuid, so the one cursor codec, MAC and Link header serve
 * it unchanged.
 */
const SEQ_POSITION_ID = "00000000-0000-0000-0000-000000000000";

export function seqPosition(seq: number): KeysetPosition {
  return { createdAt: new Date(seq), id: SEQ_POSITION_ID };
}

/** The seq a {@link seqPosition} holds; undefined for a position of another kind. */
export function seqOfPosition(position: KeysetPosition | undefined): number | undefined {
  return position?.id === SEQ_POSITION_ID ? position.createdAt.getTime() : undefined;
}

function positionOf(item: unknown): KeysetPosition {
  const { seq } = item as { seq?: unknown };
  if (typeof seq === "number") return seqPosition(seq);
  const { id, created_at: createdAt } = item as { id?: unknown; created_at?: unknown };
  if (typeof id !== "string" || typeof createdAt !== "string") throw new Error("a list item without id and created_at cannot end a page");
  return { id, createdAt: new Date(createdAt) };
}
