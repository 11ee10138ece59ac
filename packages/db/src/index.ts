export * from "./client";
export * from "./migrate";
export * as schema from "./schema";
export * from "./schema";
export * from "./queries/events";
export * from "./queries/jobs";
export * from "./queries/workers";
export * from "./queries/outbox";
export * from "./queries/automations";
