/**
 * The hub driven over HTTP like its real users: an employee creates jobs with POST /jobs (undici
 * pool of C connections), and each automation's worker speaks the worker protocol through the
 * reference worker's HubWorkerClient (global fetch, keep-alive), long-polling its claims.
 */
import { HubWorkerClient } from "@hub/reference-worker";
import { JsonClient } from "../lib/http";
import type { ClaimedJob, PullTarget } from "../lib/load";
import { CONTEXT_PARAMETER, type WorkloadPlan } from "../lib/plan";

export interface HubSeed {
  /** Token of the employee who creates the jobs. */
  creatorToken: string;
  /** Automation uuid of each plan index. */
  automationIds: string[];
  /** Worker api key of each plan index. */
  workerKeys: string[];
}

/** Sets the workload up through the API, as an admin would: sector, automations, workers, an employee. */
export async function seedHub(apiUrl: string, admin: { email: string; password: string }, plan: WorkloadPlan): Promise<HubSeed> {
  const http = new JsonClient(apiUrl, 4);
  try {
    const login = (email: string, password: string) =>
      http.send<{ access_token: string }>("POST", "/identity/token", { body: { email, password }, expected: 200 }).then((answer) => answer.access_token);
    const token = await login(admin.email, admin.password);
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
    return { creatorToken: await login(creator.email, creator.password), automationIds, workerKeys };
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

  async close(): Promise<void> {
    await this.http.close();
  }
}
