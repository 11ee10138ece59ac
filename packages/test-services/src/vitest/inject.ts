/** Inside a test: the server URLs that the vitest global setup found or started. */
import { inject } from "vitest";

declare module "vitest" {
  export interface ProvidedContext {
    databaseServerUrl: string;
    redisUrl: string;
  }
}

export function testServiceUrls(): { databaseServerUrl: string; redisUrl: string } {
  return { databaseServerUrl: inject("databaseServerUrl"), redisUrl: inject("redisUrl") };
}
