export { baseVitestConfig } from "@hub/test-services/vitest-config";
