export * from "./crud";
export * from "./outbox";
export * from "./outbox-partitions";
export * from "./outbox-scan-floor";
