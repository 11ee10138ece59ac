import { baseVitestConfig } from "@hub/testing/vitest-config";

export default baseVitestConfig;
