// The shared vitest settings (global setup included), for every package that depends on
// @hub/testing. Plain JavaScript: vitest loads config files with Node itself.
export { baseVitestConfig } from "@hub/test-services/vitest-config";
