/** Every HTTP endpoint of the hub, by resource. The OpenAPI document is built from this list. */
import type { AnyRoute } from "./http/route";
import { DEFAULT_PASSWORD_MIN_LENGTH } from "./identity/password-rules";
import { healthRoutes } from "./health/health.routes";
import { sectorRoutes } from "./sectors/sectors.routes";
import { identityRoutes } from "./identity/identity.routes";
import { oidcRoutes } from "./identity/oidc/oidc.routes";
import { userRoutes } from "./identity/users.routes";
import { apiKeyRoutes } from "./identity/api-keys.routes";
import { eventRoutes } from "./events/events.routes";
import { automationRoutes } from "./automations/automations.routes";
import { workerRoutes } from "./workers/workers.routes";
import { workerSelfRoutes } from "./workers/worker-self.routes";
import { workerProtocolRoutes } from "./worker-protocol/worker-protocol.routes";
import { dependencyRoutes } from "./worker-protocol/dependencies.routes";
import { jobRoutes } from "./jobs/jobs.routes";
import { approvalRoutes } from "./approvals/approvals.routes";
import { jobLogRoutes } from "./jobs/job-logs.routes";
import { scheduleRoutes } from "./schedules/schedules.routes";
import { webhookRoutes } from "./webhooks/webhooks.routes";
import { alertRoutes } from "./alerts/alerts.routes";
import { maintenanceWindowRoutes } from "./maintenance/maintenance.routes";

const routesByPasswordMinLength = new Map<number, AnyRoute[]>();

/**
 * Every route, for a minimum password length (HUB_PASSWORD_MIN_LENGTH): the bodies that set a
 * password validate it and /openapi.json declares it. Built once per length.
 */
export function routesFor(passwordMinLength: number): AnyRoute[] {
  let routes = routesByPasswordMinLength.get(passwordMinLength);
  if (!routes) {
    routes = [
      ...healthRoutes,
      ...sectorRoutes,
      ...identityRoutes(passwordMinLength),
      ...oidcRoutes,
      ...userRoutes(passwordMinLength),
      ...apiKeyRoutes,
      ...eventRoutes,
      ...automationRoutes,
      ...workerRoutes,
      // The worker's literal /jobs/… paths (claim, claim-batch, complete-batch, heartbeat-batch) before
      // any /jobs/{job_id} route, so none is ever read as a job id.
      ...workerProtocolRoutes,
      ...dependencyRoutes,
      ...jobRoutes,
      ...approvalRoutes,
      ...jobLogRoutes,
      ...scheduleRoutes,
      ...maintenanceWindowRoutes,
      ...webhookRoutes,
      ...alertRoutes,
      // Last: POST /workers/me/offline stops the worker, and its next call, even a refused one,
      // marks it seen again (a write); test/fuzz.test.ts, which walks the routes in this order,
      // checks that refused requests write nothing.
      ...workerSelfRoutes,
    ];
    routesByPasswordMinLength.set(passwordMinLength, routes);
  }
  return routes;
}

/** Every route with the default password rules (what the generated client and the docs describe). */
export const allRoutes: AnyRoute[] = routesFor(DEFAULT_PASSWORD_MIN_LENGTH);
