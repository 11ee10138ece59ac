/**
 * The workload, identical for the hub and for every baseline: which automation each job goes to,
 * its context, which jobs are slow, and how many parallel claim loops each automation's worker runs.
 */
import type { BenchConfig } from "./config";

export interface AutomationPlan {
  index: number;
  slug: string;
  /** Its `max_concurrent_jobs`. */
  limit: number;
  /** Parallel claim loops of its worker: more than the limit, so the hub has to refuse some claims. */
  slots: number;
}

export interface WorkloadPlan {
  automations: AutomationPlan[];
  /** Sum of every worker's claim loops. */
  totalSlots: number;
  /** The automation (index) of the i-th job of a phase. */
  automationOfJob(i: number): number;
  /** The context of the i-th job; slow jobs carry how long their worker holds them. */
  contextOfJob(i: number, phase: PhaseKind): Record<string, unknown>;
  /** How long a slow job is held: 1.5 leases, so only heartbeats keep it. */
  slowHoldMs: number;
}

export type PhaseKind = "peak" | "paced";

/** The context parameter every benchmark automation declares. */
export const CONTEXT_PARAMETER = "invoice_id";
/** Context key (an additional property) that tells the simulated worker to hold the job. */
export const HOLD_KEY = "bench_hold_ms";

export function planWorkload(config: BenchConfig, runId: string): WorkloadPlan {
  const automations: AutomationPlan[] = Array.from({ length: config.automations }, (_, index) => {
    const limit = config.limits[index % config.limits.length]!;
    return { index, slug: `bench-${runId}-${index}`, limit, slots: limit + config.slotsOverLimit };
  });
  // Jobs go to automations in proportion to their limits, spread evenly (smooth weighted
  // round-robin), so no automation is the bottleneck by construction.
  const cycle: number[] = [];
  const credit = automations.map(() => 0);
  const totalWeight = automations.reduce((sum, automation) => sum + automation.limit, 0);
  for (let step = 0; step < totalWeight; step++) {
    let best = 0;
    for (const automation of automations) {
      credit[automation.index]! += automation.limit;
      if (credit[automation.index]! > credit[best]!) best = automation.index;
    }
    credit[best]! -= totalWeight;
    cycle.push(best);
  }
  // Slow jobs are spread over the first third of the peak phase, so they are done before its last
  // job and do not stretch the throughput window (unless the phase is shorter than a slow job).
  const slowIndexes = new Set(Array.from({ length: config.slowJobs }, (_, k) => Math.floor(((k + 0.5) * (config.jobs / 3)) / config.slowJobs)));
  const slowHoldMs = Math.round(config.leaseSeconds * 1500);
  return {
    automations,
    totalSlots: automations.reduce((sum, automation) => sum + automation.slots, 0),
    automationOfJob: (i) => cycle[i % cycle.length]!,
    contextOfJob: (i, phase) => {
      const context: Record<string, unknown> = { [CONTEXT_PARAMETER]: `inv-${phase}-${i}` };
      if (phase === "peak" && slowIndexes.has(i)) context[HOLD_KEY] = String(slowHoldMs);
      return context;
    },
    slowHoldMs,
  };
}
