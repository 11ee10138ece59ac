// Relative, not "@hub/testing": a workspace devDependency would end up in the packed package.json.
import { baseVitestConfig } from "../testing/src/vitest-config.js";

export default baseVitestConfig;
