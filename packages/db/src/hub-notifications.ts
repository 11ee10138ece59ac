/**
 * The API's one LISTEN session, carrying two channels that must arrive in commit order relative
 * to each other:
 * - `hub_credentials_changed`: the triggers of migrations 0005 and 0010 NOTIFY it whenever a user
 *   is deactivated, a worker is unregistered or gets a new key, or an api key is deleted, from
 *   whichever process (or psql session) made the change;
 * - `hub_worker_signals` ({@link SIGNALS_CHANNEL}): a job taken from its worker (cancel, timeout,
 *   lapsed lease, re-queue), for the workers' signals streams.
 *
 * What a listener may rely on: while {@link HubNotificationSession.listening} is true, every
 * committed change since `onListening` was last called has been (or is about to be) reported
 * through its subscription. When the session is lost, notifications sent meanwhile are lost too,
 * so `onLost` comes first, and `onListening` again only once a new session LISTENs; a cache built
 * on this must forget everything it holds at both moments and cache nothing in between.
 */
import { settleWithin } from "@hub/shared";
import { openDedicatedSession, type DedicatedSession } from "./session";
import { SIGNALS_CHANNEL } from "./sql/workers/signals";

export const CREDENTIALS_CHANGED_CHANNEL = "hub_credentials_changed";

/** Delay before reopening a lost session; doubles up to the maximum while PostgreSQL stays away. */
const RECONNECT_INITIAL_MS = 250;
const RECONNECT_MAX_MS = 5_000;
/**
 * How often the session proves it is alive. A connection that died silently (a network path
 * broken without a reset) would otherwise keep the caches trusting it until TCP keep-alive gives
 * up, minutes later; a failed or unanswered probe ends it now.
 */
const PROBE_INTERVAL_MS = 5_000;
const PROBE_TIMEOUT_MS = 2_000;

export interface CredentialChangeHandlers {
  /** A credential may have changed (the payload names the table). */
  onChange(table: string): void;
  /** The session LISTENs from now on. */
  onListening(): void;
  /** The session is gone; changes are not reported until the next `onListening`. */
  onLost(reason: string): void;
}

/** The worker signals' subscription: each signal's payload, and the loss of the session that carries them. */
export interface WorkerSignalHandlers {
  onSignal(payload: string): void;
  /** The session is gone; signals committed until it LISTENs again are not heard. */
  onLost(reason: string): void;
}

/** What the session is subscribed to: the credentials channel always, the worker signals when given. */
export interface HubNotificationSubscriptions {
  credentials: CredentialChangeHandlers;
  workerSignals?: WorkerSignalHandlers;
}

export interface HubNotificationSession {
  readonly listening: boolean;
  stop(): Promise<void>;
}

/**
 * Starts listening at once and keeps reconnecting until stopped; never throws. Both channels are
 * LISTENed on the same session, each notification handed to its subscription as it arrives: in
 * the order PostgreSQL sent them (a worker signal notified before the unregistration in the same
 * transaction reaches its handler first). Nothing sent while the session is lost is reported;
 * `onLost` is told to the credentials first, then to the worker signals.
 */
export function listenForHubNotifications(databaseUrl: string, applicationName: string, subscriptions: HubNotificationSubscriptions): HubNotificationSession {
  const { credentials, workerSignals } = subscriptions;
  let session: DedicatedSession | null = null;
  let listening = false;
  let stopped = false;
  let retryTimer: NodeJS.Timeout | null = null;
  let delayMs = RECONNECT_INITIAL_MS;

  const probe = setInterval(() => {
    const current = session;
    if (!current) return;
    settleWithin(current.query({ text: "SELECT 1" }), PROBE_TIMEOUT_MS, "no answer").catch((error: Error) => {
      if (session !== current) return;
      lose(`probe failed: ${error.message}`);
      void current.close();
    });
  }, PROBE_INTERVAL_MS);
  probe.unref();

  const scheduleReconnect = () => {
    if (stopped || retryTimer) return;
    retryTimer = setTimeout(() => {
      retryTimer = null;
      void connect();
    }, delayMs);
    retryTimer.unref();
    delayMs = Math.min(delayMs * 2, RECONNECT_MAX_MS);
  };

  const lose = (reason: string) => {
    const wasListening = listening;
    listening = false;
    session = null;
    if (wasListening) {
      credentials.onLost(reason);
      workerSignals?.onLost(reason);
    }
    scheduleReconnect();
  };

  async function connect(): Promise<void> {
    if (stopped) return;
    let opened: DedicatedSession | null = null;
    try {
      opened = await openDedicatedSession(databaseUrl, {
        applicationName,
        connectTimeoutMs: 5_000,
        onNotification: (channel, payload) => {
          if (channel === CREDENTIALS_CHANGED_CHANNEL) credentials.onChange(payload);
          else if (channel === SIGNALS_CHANNEL) workerSignals?.onSignal(payload);
        },
        onLost: (reason) => {
          if (session === opened) lose(reason);
        },
      });
      await opened.query({ text: `LISTEN ${CREDENTIALS_CHANGED_CHANNEL}` });
      if (workerSignals) await opened.query({ text: `LISTEN ${SIGNALS_CHANNEL}` });
    } catch {
      await opened?.close();
      scheduleReconnect();
      return;
    }
    if (stopped || opened.lost) {
      await opened.close();
      if (!stopped) scheduleReconnect();
      return;
    }
    session = opened;
    listening = true;
    delayMs = RECONNECT_INITIAL_MS;
    credentials.onListening();
  }

  void connect();
  return {
    get listening() {
      return listening;
    },
    async stop() {
      stopped = true;
      clearInterval(probe);
      if (retryTimer) clearTimeout(retryTimer);
      listening = false;
      const current = session;
      session = null;
      await current?.close();
    },
  };
}
