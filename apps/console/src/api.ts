/**
 * The console talks to the hub only through its public HTTP API, with the typed client of
 * @hub/client (openapi-fetch): whatever the console does, a script can do too.
 */
import { createHubClient, type HubClient } from "@hub/client";

export type {
  ApiKey,
  Automation,
  AutomationStats,
  BulkActionResult,
  Event as HubEvent,
  Job,
  MaintenanceWindow,
  Schedule,
  Sector,
  User,
  Webhook,
  WebhookDelivery,
} from "@hub/client";

/** Where the session's login token lives: this tab only, gone when it closes (never localStorage). */
const TOKEN_KEY = "hub.console.token";

export function storedToken(): string | undefined {
  return sessionStorage.getItem(TOKEN_KEY) ?? undefined;
}

export function storeToken(token: string | undefined): void {
  if (token === undefined) sessionStorage.removeItem(TOKEN_KEY);
  else sessionStorage.setItem(TOKEN_KEY, token);
}

/** Told when the hub refuses the session's token (expired, or the user was deactivated or changed). */
let onSessionRefused: () => void = () => undefined;
export function whenSessionRefused(handler: () => void): void {
  onSessionRefused = handler;
}

/** The hub's API on this page's own origin, sending the session's token. */
export const hub: HubClient = createHubClient({ baseUrl: window.location.origin, token: storedToken });
hub.use({
  onResponse({ request, response }) {
    // A refusal of a token the tab has since replaced (a password change answers a new one) is not the session's end.
    const sentCurrentToken = request.headers.get("authorization") === `Bearer ${storedToken() ?? ""}`;
    if (response.status === 401 && !request.url.endsWith("/identity/token") && sentCurrentToken) onSessionRefused();
    return response;
  },
});

/** A failed call, as a sentence a person can act on. */
export class ApiError extends Error {
  constructor(
    message: string,
    readonly status: number,
    /** For 422: each problem's location (without "body"/"query") and message. */
    readonly issues: { field: string; message: string }[] = [],
  ) {
    super(message);
    this.name = "ApiError";
  }
}

/** Field path of a 422 issue: ["body","context","month"] → "context.month". */
function fieldOf(loc: (string | number)[]): string {
  return loc.slice(1).join(".");
}

/**
 * The body of a successful call, or an {@link ApiError} built from the hub's error body
 * (`{detail}` or the 422 issue list). Network failures reject as they are.
 */
export async function call<T>(request: Promise<{ data?: T; error?: unknown; response: Response }>): Promise<T> {
  const { data, error, response } = await request;
  if (response.ok) return data as T;
  const detail = (error as { detail?: unknown } | undefined)?.detail;
  if (Array.isArray(detail)) {
    const issues = detail.map((issue: { loc: (string | number)[]; msg: string }) => ({ field: fieldOf(issue.loc), message: issue.msg }));
    throw new ApiError(issues.map((issue) => (issue.field ? `${issue.field}: ${issue.message}` : issue.message)).join("; "), response.status, issues);
  }
  if (typeof detail === "string") throw new ApiError(detail, response.status);
  throw new ApiError(`The hub answered ${response.status} ${response.statusText}`.trim(), response.status);
}

/** The cursor of the next page, from a list's `Link: <…?cursor=…>; rel="next"` header. */
export function nextCursor(response: Response): string | undefined {
  const link = response.headers.get("link");
  const target = link ? /<([^>]+)>;\s*rel="next"/.exec(link)?.[1] : undefined;
  return target ? (new URL(target, window.location.origin).searchParams.get("cursor") ?? undefined) : undefined;
}

/** A failed call's 422 problems by field ("context.month" → its message); none for any other failure. */
export function issuesByField(failure: unknown): Record<string, string> {
  return failure instanceof ApiError ? Object.fromEntries(failure.issues.map((issue) => [issue.field, issue.message])) : {};
}

/** A message for anything thrown by a call. */
export function describeError(error: unknown): string {
  if (error instanceof ApiError) return error.message;
  if (error instanceof TypeError) return "Cannot reach the hub. Check your connection and try again.";
  return error instanceof Error ? error.message : String(error);
}
