/** A reference worker for Automation Hub: the protocol client and the claim/heartbeat/report loop. */
export * from "./worker-client";
export * from "./worker-loop";
