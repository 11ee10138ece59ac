/**
 * The hub driven over HTTP like its real users: an employee creates jobs with POST /jobs (undici
 * pool of C connections), and each automation's worker speaks the worker protocol through the
 * reference worker's HubWorkerClient (global fetch, keep-alive), long-polling its claims.
 */
import { HubWorkerClient } from "@hub/worker";
import { JsonClient } from "../lib/http";
import type { BatchItemStatus, BatchPullTarget, ClaimedJob, JobSpec, PullTarget } from "../lib/load";
import { CONTEXT_PARAMETER, type WorkloadPlan } from "../lib/plan";

export interface HubSeed {
  /** Token of the employee who creates the jobs. */
  creatorToken: string;
  /** An api key of that employee (`hub_…`), for measuring POST /jobs with either credential. */
  creatorApiKey: string;
  /** Automation uuid of each plan index. */
  automationIds: string[];
  /** Worker api key of each plan index. */
  workerKeys: string[];
}

/** A user's bearer token (`POST /identity/token`). */
export async function login(http: JsonClient, user: { email: string; password: string }): Promise<string> {
  const answer = await http.send<{ access_token: string }>("POST", "/identity/token", { body: { email: user.email, password: user.password }, expected: 200 });
  return answer.access_token;
}

/** Sets the workload up through the API, as an admin would: sector, automations, workers, an employee. */
export async function seedHub(apiUrl: string, admin: { email: string; password: string }, plan: WorkloadPlan): Promise<HubSeed> {
  const http = new JsonClient(apiUrl, 4);
  try {
    const loginAs = (email: string, password: string) => login(http, { email, password });
    const token = await loginAs(admin.email, admin.password);
    const creator = { email: "bench-creator@hub.local", password: "bench-creator-password" };
    await http.send("POST", "/identity/users", { token, body: { ...creator, role: "employee" }, expected: 201 });
    const sector = await http.send<{ id: string }>("POST", "/sectors", { token, body: { name: "Benchmark", color: "#336699" }, expected: 201 });
    const automationIds: string[] = [];
    const workerKeys: string[] = [];
    for (const automation of plan.automations) {
      const created = await http.send<{ id: string }>("POST", "/automations", {
        token,
        body: {
          name: `Benchmark ${automation.index}`,
          slug: automation.slug,
          sector_id: sector.id,
          parameters: [{ name: CONTEXT_PARAMETER, description: "Invoice to process" }],
          description: "Created by bench/run.ts",
          max_concurrent_jobs: automation.limit,
        },
        expected: 201,
      });
      const worker = await http.send<{ api_key: string }>("POST", `/automations/${created.id}/worker`, {
        token,
        body: { cloud_instance_id: `bench-worker-${automation.index}` },
        expected: 201,
      });
      automationIds.push(created.id);
      workerKeys.push(worker.api_key);
    }
    const creatorToken = await loginAs(creator.email, creator.password);
    const apiKey = await http.send<{ key: string }>("POST", "/identity/api-keys", { token: creatorToken, body: { name: "bench producer" }, expected: 201 });
    return { creatorToken, creatorApiKey: apiKey.key, automationIds, workerKeys };
  } finally {
    await http.close();
  }
}

export class HubHttpTarget implements PullTarget {
  private readonly http: JsonClient;
  private readonly workers: HubWorkerClient[];

  constructor(
    apiUrl: string,
    private readonly seed: HubSeed,
    creators: number,
    /** `wait_seconds` of complete-and-claim; 0 is the worker SDK's. */
    private readonly nextWaitSeconds = 0,
  ) {
    this.http = new JsonClient(apiUrl, creators);
    this.workers = seed.workerKeys.map((apiKey) => new HubWorkerClient({ baseUrl: apiUrl, apiKey, requestTimeoutMs: 30_000 }));
  }

  async createJob(automation: number, context: Record<string, unknown>): Promise<string> {
    const created = await this.http.send<{ id: string }>("POST", "/jobs", {
      token: this.seed.creatorToken,
      body: { automation_id: this.seed.automationIds[automation], context },
      expected: 201,
    });
    return created.id;
  }

  async claimJob(automation: number, waitSeconds: number, signal: AbortSignal): Promise<ClaimedJob | null> {
    const job = await this.workers[automation]!.claim(waitSeconds, signal);
    return job ? { id: job.id, context: job.context } : null;
  }

  async heartbeat(automation: number, jobId: string): Promise<void> {
    await this.workers[automation]!.heartbeat(jobId);
  }

  async completeJob(automation: number, jobId: string, result: Record<string, unknown>): Promise<void> {
    await this.workers[automation]!.complete(jobId, result);
  }

  async completeAndClaim(automation: number, jobId: string, result: Record<string, unknown>): Promise<ClaimedJob | null> {
    const { next } = await this.workers[automation]!.completeAndClaim(jobId, result, { waitSeconds: this.nextWaitSeconds });
    return next ? { id: next.id, context: next.context } : null;
  }

  async close(): Promise<void> {
    await this.http.close();
  }
}

/** The batch endpoints of CONTRACT §6.6, by the path the batched mode needs. */
const BATCH_ENDPOINTS = ["/jobs/batch", "/jobs/claim-batch", "/jobs/complete-batch", "/jobs/heartbeat-batch"] as const;

/**
 * Which batch endpoints the API lacks: each is sent an empty batch, which the contract refuses
 * with 422 and which creates or changes nothing; 404 or 405 means the route is not there.
 */
export async function missingBatchEndpoints(apiUrl: string, seed: HubSeed): Promise<string[]> {
  const http = new JsonClient(apiUrl, 2);
  try {
    const bodies: Record<(typeof BATCH_ENDPOINTS)[number], unknown> = {
      "/jobs/batch": { jobs: [] },
      "/jobs/claim-batch": { max_jobs: 0 },
      "/jobs/complete-batch": { items: [] },
      "/jobs/heartbeat-batch": { ids: [] },
    };
    const missing: string[] = [];
    for (const path of BATCH_ENDPOINTS) {
      const worker = path !== "/jobs/batch";
      const answer = await http.exchange("POST", path, {
        body: bodies[path],
        ...(worker ? { headers: { "x-worker-api-key": seed.workerKeys[0]! } } : { token: seed.creatorToken }),
      });
      if (answer.status === 404 || answer.status === 405) missing.push(`POST ${path} → ${answer.status}`);
    }
    return missing;
  } finally {
    await http.close();
  }
}

interface WireJob {
  id: string;
  context: Record<string, unknown>;
}

/**
 * The hub driven through its batch endpoints (CONTRACT §6.6): creators send `POST /jobs/batch`,
 * workers `claim-batch`, `complete-batch` and `heartbeat-batch`, all over undici keep-alive pools.
 */
export class HubBatchTarget implements BatchPullTarget {
  private readonly creators: JsonClient;
  private readonly workers: JsonClient;

  constructor(
    apiUrl: string,
    private readonly seed: HubSeed,
    creators: number,
    /** Requests the workers can have in flight at once: their long-polls plus completes and heartbeats. */
    workerConnections: number,
  ) {
    this.creators = new JsonClient(apiUrl, creators);
    this.workers = new JsonClient(apiUrl, workerConnections);
  }

  async createJob(automation: number, context: Record<string, unknown>): Promise<string> {
    const [id] = await this.createJobs([{ automation, context }]);
    return id!;
  }

  async createJobs(jobs: readonly JobSpec[]): Promise<string[]> {
    const created = await this.creators.send<{ ids: string[] }>("POST", "/jobs/batch", {
      token: this.seed.creatorToken,
      body: { jobs: jobs.map((job) => ({ automation_id: this.seed.automationIds[job.automation], context: job.context })) },
      expected: 201,
    });
    return created.ids;
  }

  private workerCall<T>(automation: number, path: string, body: unknown, signal?: AbortSignal): Promise<{ status: number; body: T | undefined }> {
    return this.workers.exchange("POST", path, { body, headers: { "x-worker-api-key": this.seed.workerKeys[automation]! }, signal }).then((answer) => {
      if (answer.status !== 200 && answer.status !== 204) throw new Error(`POST ${path} → ${answer.status} ${answer.text.slice(0, 200)}`);
      return { status: answer.status, body: answer.text ? (JSON.parse(answer.text) as T) : undefined };
    });
  }

  async claimBatch(automation: number, maxJobs: number, waitSeconds: number, signal: AbortSignal): Promise<ClaimedJob[]> {
    const answer = await this.workerCall<{ jobs: WireJob[] }>(automation, "/jobs/claim-batch", { max_jobs: maxJobs, wait_seconds: waitSeconds }, signal);
    return answer.status === 204 ? [] : (answer.body?.jobs ?? []).map((job) => ({ id: job.id, context: job.context }));
  }

  async heartbeatBatch(automation: number, jobIds: readonly string[]): Promise<BatchItemStatus[]> {
    const answer = await this.workerCall<{ results: BatchItemStatus[] }>(automation, "/jobs/heartbeat-batch", { ids: jobIds });
    return answer.body?.results ?? [];
  }

  async completeBatch(automation: number, items: readonly { id: string; result: Record<string, unknown> }[]): Promise<BatchItemStatus[]> {
    const answer = await this.workerCall<{ results: BatchItemStatus[] }>(automation, "/jobs/complete-batch", { items });
    return answer.body?.results ?? [];
  }

  async close(): Promise<void> {
    await Promise.all([this.creators.close(), this.workers.close()]);
  }
}
