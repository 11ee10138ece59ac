/**
 * Load for the system tests that break things under it (dependency faults, Redis Cluster, killed
 * processes): a producer that keeps creating jobs through any number of API processes, and a guard
 * that ends a wait at once when a hub process exited on its own.
 */
import { randomUUID } from "node:crypto";
import { HubClient, sleep } from "@hub/testing";
import type { SystemHub } from "./system-hub";

/** Wraps a probe so that a wait ends at once, with the reason, when a hub process exits on its own. */
export function whileHubAlive<T>(hub: SystemHub, probe: () => Promise<T>): () => Promise<T> {
  return async () => {
    const exits = hub.processes.unexpectedExits();
    if (exits.length > 0) throw new Error(`a hub process exited on its own: ${JSON.stringify(exits)}`);
    return probe();
  };
}

/** Between two tries of one create that met a 503 or no API at all. */
const RETRY_PAUSE_MS = 50;

/**
 * Creates jobs in `lanes` loops spread over the given API processes and automations. A create that
 * met an API process that is down (network error) or unavailable (503) is tried again on the next
 * API with the same Idempotency-Key, so each job the hub accepted is recorded once, whether the
 * answer that said so was 201 or, after a lost answer, a replayed 200. Every answer is counted.
 */
export class JobProducer {
  readonly created = new Set<string>();
  readonly answers = new Map<number, number>();
  networkErrors = 0;
  private stopped = false;
  private readonly lanes: Array<Promise<void>> = [];
  private sequence = 0;
  private nextApi = 0;

  constructor(
    private readonly apiUrls: readonly string[],
    private readonly token: string,
    private readonly automationIds: readonly string[],
  ) {}

  start(lanes: number, pauseMs: number): this {
    for (let lane = 0; lane < lanes; lane++) this.lanes.push(this.lane(pauseMs));
    return this;
  }

  /**
   * Creates one job, trying again while the hub answers 503 or no API answers at all; resolves
   * with its id, or undefined on any other answer (counted in `answers`) or once the producer stops.
   */
  async createOne(): Promise<string | undefined> {
    const number = this.sequence++;
    const automationId = this.automationIds[number % this.automationIds.length]!;
    const key = randomUUID();
    for (;;) {
      const client = new HubClient(this.apiUrls[this.nextApi++ % this.apiUrls.length]!);
      try {
        const answer = await client.post<{ id: string }>(
          "/jobs",
          { automation_id: automationId, context: { number } },
          { token: this.token, headers: { "idempotency-key": key } },
        );
        this.answers.set(answer.status, (this.answers.get(answer.status) ?? 0) + 1);
        if ((answer.status === 201 || answer.status === 200) && answer.body?.id) {
          this.created.add(answer.body.id);
          return answer.body.id;
        }
        if (answer.status !== 503) return undefined;
      } catch {
        this.networkErrors += 1;
        // Every API is gone (a test fails on that by itself): stop trying once the load stops.
        if (this.stopped) return undefined;
      }
      await sleep(RETRY_PAUSE_MS);
    }
  }

  private async lane(pauseMs: number): Promise<void> {
    while (!this.stopped) {
      await this.createOne();
      await sleep(pauseMs);
    }
  }

  async stop(): Promise<void> {
    this.stopped = true;
    await Promise.all(this.lanes);
  }

  /** Answers other than 200, 201 and 503, e.g. `{ "500": 2 }`. */
  unexpectedAnswers(): Record<string, number> {
    return Object.fromEntries([...this.answers].filter(([status]) => ![200, 201, 503].includes(status)));
  }
}
