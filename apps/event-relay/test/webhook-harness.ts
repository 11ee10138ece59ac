/**
 * Webhook test bed: local HTTP receivers on 127.0.0.1 that record what arrives and answer as a
 * test scripts them, subscriptions written straight into the database (the API's own tests cover
 * how they are created), and in-process delivery loops wired to in-process relays.
 */
import { randomUUID } from "node:crypto";
import { createServer, type IncomingMessage, type Server, type ServerResponse } from "node:http";
import type { AddressInfo } from "node:net";
import { sql } from "drizzle-orm";
import { type Database, type Executor, type WebhookDelivery, events, queryBuilder, schema, webhooks, withTransaction } from "@hub/db";
import type { EventType, Logger } from "@hub/shared";
import { generateWebhookSecret, WebhookSecretBox, type HostResolver } from "@hub/shared/webhooks";
import { createLogger } from "@hub/shared";
import type { EventRelay } from "../src/relay";
import type { WebhookDeliveryConfig } from "../src/webhooks/config";
import { createWebhookDelivery, type WebhookDelivery as DeliveryLoop } from "../src/webhooks/delivery-loop";
import { createRelayTestbed, type RelayTestbed } from "./harness";

export const testSecretBox = new WebhookSecretBox(Buffer.alloc(32, 42));

/** One request a receiver got. */
export interface ReceivedRequest {
  headers: IncomingMessage["headers"];
  body: string;
  /** `body` parsed: the event record. */
  event: { id: string; event_type: string; aggregate_id: string; payload: Record<string, unknown>; dispatched_at: string | null } & Record<string, unknown>;
  receivedAt: number;
}

/** What a receiver does with a request: answer (status, optional body/headers) or hang until closed. */
export type ReceiverAnswer = { status: number; headers?: Record<string, string>; body?: string | { streamBytes: number } } | "hang";

export interface Receiver {
  url: string;
  port: number;
  requests: ReceivedRequest[];
  /** Requests whose connection was closed by the sender before the answer was complete. */
  cutOff: number;
  /** Bytes of streamed answers written before the sender closed the connection. */
  streamedBytes: number;
  close(): Promise<void>;
}

/** Starts a receiver; `answer` decides each response (default 204). */
export async function startReceiver(answer: (request: ReceivedRequest, index: number) => ReceiverAnswer = () => ({ status: 204 })): Promise<Receiver> {
  const requests: ReceivedRequest[] = [];
  const open = new Set<ServerResponse>();
  const state = { cutOff: 0, streamedBytes: 0 };
  const server: Server = createServer((req, res) => {
    const chunks: Buffer[] = [];
    req.on("data", (chunk: Buffer) => chunks.push(chunk));
    req.on("end", () => {
      const body = Buffer.concat(chunks).toString("utf8");
      const received: ReceivedRequest = { headers: req.headers, body, event: JSON.parse(body), receivedAt: Date.now() };
      requests.push(received);
      const decision = answer(received, requests.length - 1);
      open.add(res);
      res.on("close", () => {
        open.delete(res);
        if (!res.writableFinished) state.cutOff++;
      });
      if (decision === "hang") return;
      if (decision.body && typeof decision.body === "object") {
        res.writeHead(decision.status, { "content-type": "application/octet-stream", ...decision.headers });
        const chunk = Buffer.alloc(16 * 1024, 120);
        let left = decision.body.streamBytes;
        const pump = () => {
          while (left > 0 && !res.destroyed) {
            left -= chunk.length;
            state.streamedBytes += chunk.length;
            if (!res.write(chunk)) return res.once("drain", pump);
          }
          if (!res.destroyed) res.end();
        };
        pump();
        return;
      }
      res.writeHead(decision.status, decision.headers);
      res.end(decision.body);
    });
  });
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
  const { port } = server.address() as AddressInfo;
  return {
    url: `http://127.0.0.1:${port}/hooks`,
    port,
    requests,
    get cutOff() {
      return state.cutOff;
    },
    get streamedBytes() {
      return state.streamedBytes;
    },
    async close() {
      for (const res of open) res.destroy();
      server.closeAllConnections();
      await new Promise((resolve) => server.close(resolve));
    },
  };
}

/** Writes a subscription as POST /webhooks would; returns its id and secret. */
export async function subscribe(
  pool: Executor,
  options: { url: string; eventTypes: string[]; format?: "standard" | "slack" },
): Promise<{ id: string; secret: string }> {
  const [admin] = await queryBuilder(pool)
    .insert(schema.users)
    .values({ email: `admin-${randomUUID()}@hub.test`, passwordHash: "x", role: "admin" })
    .returning({ id: schema.users.id });
  const id = randomUUID();
  const secret = generateWebhookSecret();
  await withTransaction(pool, (tx) =>
    webhooks.insert(tx, {
      id,
      url: options.url,
      eventTypes: options.eventTypes,
      description: "",
      format: options.format ?? "standard",
      secretCiphertext: testSecretBox.seal(id, secret),
      createdBy: admin!.id,
    }),
  );
  return { id, secret };
}

/** Writes one event per type for `aggregateId`, each in its own transaction after touching the job row (as the hub does). */
export async function writeJobEvents(pool: Executor, aggregateId: string, types: EventType[]): Promise<void> {
  for (const eventType of types) {
    await withTransaction(pool, async (tx) => {
      const [row] = await queryBuilder(tx)
        .execute<{ attempts: number }>(sql`update jobs set attempts = attempts + 1 where id = ${aggregateId} returning attempts`)
        .then((r) => r.rows);
      // Not the catalogue's payloads: the relay forwards any payload, and these tests read only the order.
      await events.record(tx, { eventType, aggregateId, actorId: null, payload: { attempts: row!.attempts } } as unknown as events.NewEvent);
    });
  }
}

/** Fast settings for tests: quick polls and short leases; http and loopback allowed. */
export const testDeliveryConfig: Partial<WebhookDeliveryConfig> = {
  policy: { allowInsecure: true, allowPrivate: true },
  pollMs: 10,
  requestTimeoutMs: 3000,
  leaseMs: 6000,
  stopGraceMs: 500,
  maxBackoffMs: 300,
};

export interface DeliveryOverrides {
  config?: Partial<WebhookDeliveryConfig>;
  resolver?: HostResolver;
  logger?: Logger;
}

/** A relay and its delivery loop, wired as the app wires them (the relay wakes the loop when it queues deliveries). */
export interface RelayWithWebhooks {
  relay: EventRelay;
  webhooks: DeliveryLoop;
}

/** The relay test bed plus receivers and delivery loops, all stopped by `stop()`. */
export interface WebhookTestbed extends RelayTestbed {
  startRelayWithWebhooks(overrides?: DeliveryOverrides): Promise<RelayWithWebhooks>;
  startReceiver(answer?: Parameters<typeof startReceiver>[0]): Promise<Receiver>;
}

export async function createWebhookTestbed(): Promise<WebhookTestbed> {
  const bed = await createRelayTestbed();
  const loops: DeliveryLoop[] = [];
  const receivers: Receiver[] = [];
  return {
    ...bed,
    async startRelayWithWebhooks(overrides = {}) {
      const wiring: { webhooks?: DeliveryLoop } = {};
      const relay = await bed.startRelay({ onWebhookDeliveriesQueued: () => wiring.webhooks?.wake() });
      const webhooks = createWebhookDelivery({
        pool: bed.pool,
        secrets: testSecretBox,
        logger: overrides.logger ?? createLogger("webhooks-test", process.env.LOG_LEVEL ?? "silent"),
        relayMetrics: relay.metrics,
        config: { ...testDeliveryConfig, ...overrides.config },
        ...(overrides.resolver ? { resolver: overrides.resolver } : {}),
      });
      wiring.webhooks = webhooks;
      webhooks.start();
      loops.push(webhooks);
      return { relay, webhooks };
    },
    async startReceiver(answer) {
      const receiver = await startReceiver(answer);
      receivers.push(receiver);
      return receiver;
    },
    async stop() {
      await Promise.all(receivers.map((receiver) => receiver.close()));
      await Promise.all(loops.map((loop) => loop.stop()));
      await bed.stop();
    },
  };
}

/** Every delivery of a subscription, oldest event first. */
export async function deliveriesOf(db: Database["db"], webhookId: string): Promise<WebhookDelivery[]> {
  const rows = await db
    .select()
    .from(schema.webhookDeliveries)
    .where(sql`${schema.webhookDeliveries.webhookId} = ${webhookId}`)
    .orderBy(schema.webhookDeliveries.eventPosition);
  return rows;
}
