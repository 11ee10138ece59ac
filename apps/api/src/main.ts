// Tracing starts before anything imports node:http, express, pg or ioredis, which it instruments
// (@hub/tracing says why); with no OTLP endpoint set it loads nothing and this costs nothing.
import { startTracingOrExit } from "@hub/tracing";

await startTracingOrExit("api");
await import("./hub-process");
