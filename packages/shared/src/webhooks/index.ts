/** What the API and the event relay share about webhooks: targets (SSRF defence), signatures, secrets at rest. */
export * from "./addresses";
export * from "./target";
export * from "./signing";
export * from "./secrets";
export * from "./slack";
