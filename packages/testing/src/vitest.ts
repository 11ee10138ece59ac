/** Fixtures that run inside vitest: the server URLs its global setup found, and the system-test hub. */
export { testServiceUrls } from "@hub/test-services/vitest";
export * from "./system-hub";
export * from "./test-environment";
