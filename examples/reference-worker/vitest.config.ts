import { baseVitestConfig } from "../../tooling/vitest.base.ts";

export default baseVitestConfig;
