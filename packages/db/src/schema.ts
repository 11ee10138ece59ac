/**
 * The hub's tables as drizzle declarations, one file per group in ./tables: the typed row shapes
 * (`Job`, `Automation`…) and the tables the query builder builds statements on. Not the source of
 * the schema: the numbered migrations (../drizzle) and the function files (../functions) are, and
 * ../schema.sql shows the result. `schema.test.ts` checks every table, column, index and check
 * constraint declared here against a freshly migrated database. packages/db/README.md, "What each
 * file is".
 */
export * from "./tables/automations";
export * from "./tables/events";
export * from "./tables/identity";
export * from "./tables/jobs";
export * from "./tables/alerts";
export * from "./tables/maintenance";

import type { events, webhookDeliveries, webhooks } from "./tables/events";
import type { automations, schedules, sectors, workers } from "./tables/automations";
import type { jobs } from "./tables/jobs";
import type { apiKeys, users } from "./tables/identity";
import type { alertHistory, alertRules } from "./tables/alerts";
import type { maintenanceOccurrences, maintenanceWindows } from "./tables/maintenance";

export type Sector = typeof sectors.$inferSelect;
export type User = typeof users.$inferSelect;
export type Automation = typeof automations.$inferSelect;
export type Worker = typeof workers.$inferSelect;
export type Job = typeof jobs.$inferSelect;
export type Schedule = typeof schedules.$inferSelect;
export type HubEvent = typeof events.$inferSelect;
export type ApiKey = typeof apiKeys.$inferSelect;
export type Webhook = typeof webhooks.$inferSelect;
export type WebhookDelivery = typeof webhookDeliveries.$inferSelect;
export type AlertRule = typeof alertRules.$inferSelect;
export type AlertHistoryEntry = typeof alertHistory.$inferSelect;
export type MaintenanceWindow = typeof maintenanceWindows.$inferSelect;
export type MaintenanceOccurrence = typeof maintenanceOccurrences.$inferSelect;
