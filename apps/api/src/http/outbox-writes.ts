/**
 * Requests known to have written no event, so that the API nudges the event relays only after
 * requests that may have (app.ts): unknown means "may have". Only a handler that knows its request
 * wrote nothing says so — a long-poll claim that found no job. (A worker coming back to `running`
 * on such a call records an event at authentication, which nudges the relays then: see Authenticator.)
 */
import type { ServerResponse } from "node:http";

const wroteNoEvents = new WeakSet<ServerResponse>();

/** The request's work wrote no event: its answer sends the relays no nudge. */
export function noteNoEventsWritten(res: ServerResponse): void {
  wroteNoEvents.add(res);
}

/** False only when the request is known to have written no event. */
export function mayHaveWrittenEvents(res: ServerResponse): boolean {
  return !wroteNoEvents.has(res);
}
