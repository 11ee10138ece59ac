import { baseVitestConfig } from "@hub/test-services/vitest-config";

export default baseVitestConfig;
