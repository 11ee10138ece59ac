#!/usr/bin/env node
// hub-worker inside this repository: runs the CLI from its TypeScript source through tsx, so it
// works without a build. The published package's bin is the compiled dist/cli.js (publishConfig).
import { register } from "tsx/esm/api";

register();
await import("../src/cli.ts");
