/**
 * Long-lived responses (server-sent event streams) and the credential each was opened with
 * (CONTRACT §6.15: a stream ends within 1 s once a new request with its credential would be
 * refused). Every open stream's credential is checked again through the same
 * {@link Authenticator.authenticate} a new request takes:
 *
 * - at once when PostgreSQL announces a credential change (a deactivation, a deleted api key, a
 *   rotated or unregistered worker key, and whatever else a later change announces on
 *   `hub_credentials_changed`: a new credential generation needs no code here), and
 * - every {@link RECHECK_INTERVAL_MS}, for what no notification announces: a token's `exp`, an api
 *   key's `expires_at`, a worker key's overlap running out. Checks of unchanged credentials are
 *   answered from the authentication caches, so they cost no PostgreSQL query.
 *
 * Generic over the streams: GET /events/stream today, the job log and worker signal streams later.
 */
import type { Request } from "express";
import { ForbiddenError, UnauthorizedError } from "./http-errors";
import type { AuthRequirement, Authenticator, Caller } from "./auth";
import type { Metrics } from "../metrics";

/** How often every open stream's credential is checked again, notifications aside. */
export const RECHECK_INTERVAL_MS = 500;

/** The stream kinds, as the `stream` label of hub_streams_open and hub_streams_refused_total names them. */
export type StreamName = "events" | "job_logs" | "worker_signals";

export interface StreamRegistration<A extends AuthRequirement> {
  name: StreamName;
  /** The request that opened the stream: its credential headers are what is checked again. */
  req: Request;
  requirement: A;
  /** The credential is still accepted (its user's role, say, may have changed). */
  onCaller?(caller: Caller<A>): void;
  /** The credential would be refused now: end the stream. */
  end(): void;
}

interface TrackedStream {
  registration: StreamRegistration<AuthRequirement>;
  checking: boolean;
  /** A change arrived while a check ran: that check may have read the credential as it was before. */
  checkAgain: boolean;
  closed: boolean;
}

export class OpenStreams {
  private readonly streams = new Set<TrackedStream>();
  private timer: NodeJS.Timeout | undefined;
  private readonly stopListening: () => void;

  constructor(
    private readonly auth: Authenticator,
    private readonly metrics: Pick<Metrics, "streamsOpen">,
  ) {
    this.stopListening = auth.onCredentialsChanged(() => this.recheckAll());
  }

  /** Follows a stream's credential until the returned function is called (when the stream ends, however it ends). */
  track<A extends AuthRequirement>(registration: StreamRegistration<A>): () => void {
    const tracked: TrackedStream = { registration: registration as StreamRegistration<AuthRequirement>, checking: false, checkAgain: false, closed: false };
    this.streams.add(tracked);
    this.metrics.streamsOpen.inc({ stream: registration.name });
    this.timer ??= setInterval(() => this.recheckAll(), RECHECK_INTERVAL_MS);
    return () => {
      if (tracked.closed) return;
      tracked.closed = true;
      this.streams.delete(tracked);
      this.metrics.streamsOpen.dec({ stream: registration.name });
      if (this.streams.size === 0) {
        clearInterval(this.timer);
        this.timer = undefined;
      }
    };
  }

  /** Stops checking (API shutdown; the streams themselves are ended by their owners). */
  close(): void {
    clearInterval(this.timer);
    this.timer = undefined;
    this.stopListening();
  }

  private recheckAll(): void {
    for (const tracked of this.streams) void this.recheck(tracked);
  }

  private async recheck(tracked: TrackedStream): Promise<void> {
    if (tracked.checking) {
      tracked.checkAgain = true;
      return;
    }
    tracked.checking = true;
    try {
      do {
        tracked.checkAgain = false;
        const { registration } = tracked;
        try {
          const caller = await this.auth.authenticate(registration.req, registration.requirement);
          if (!tracked.closed) registration.onCaller?.(caller);
        } catch (error) {
          if ((error instanceof UnauthorizedError || error instanceof ForbiddenError) && !tracked.closed) {
            registration.end();
            return;
          }
          // Anything else (PostgreSQL unreachable): keep streaming, check again later.
        }
      } while (tracked.checkAgain && !tracked.closed);
    } finally {
      tracked.checking = false;
    }
  }
}
