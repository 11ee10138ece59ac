/** Every HTTP endpoint of the hub, by resource. The OpenAPI document is built from this list. */
import type { AnyRoute } from "./http/route";
import { healthRoutes } from "./health/health.routes";
import { sectorRoutes } from "./sectors/sectors.routes";

export const allRoutes: AnyRoute[] = [...healthRoutes, ...sectorRoutes];
