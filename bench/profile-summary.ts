/**
 * Summarizes V8 CPU profiles (`--cpu-prof`, written by `BENCH_CPU_PROF=api pnpm bench`): the
 * functions with the most self time, and self time by package, so "what dominates" is one
 * command away.
 *
 *   node --import tsx bench/profile-summary.ts bench/results/profiles/api-*.cpuprofile [--top 25]
 */
import { readFileSync } from "node:fs";
import path from "node:path";

interface ProfileNode {
  id: number;
  callFrame: { functionName: string; url: string; lineNumber: number };
  hitCount?: number;
}

interface CpuProfile {
  nodes: ProfileNode[];
  samples: number[];
  timeDeltas: number[];
}

/** "pg", "drizzle-orm", "@hub/api" …: where a frame's code lives. */
function packageOf(url: string): string {
  if (!url) return "(native / vm)";
  if (url.startsWith("node:")) return "node core";
  const modules = url.lastIndexOf("node_modules/");
  if (modules >= 0) {
    const rest = url.slice(modules + "node_modules/".length).split("/");
    return rest[0]!.startsWith("@") ? `${rest[0]}/${rest[1]}` : rest[0]!;
  }
  const workspace = /\/(apps|packages|examples|tooling)\/([^/]+)\//.exec(url);
  return workspace ? `${workspace[1]}/${workspace[2]}` : path.basename(url);
}

function summarize(file: string, top: number): string {
  const profile = JSON.parse(readFileSync(file, "utf8")) as CpuProfile;
  const byId = new Map(profile.nodes.map((node) => [node.id, node]));
  const selfMicros = new Map<number, number>();
  profile.samples.forEach((id, index) => selfMicros.set(id, (selfMicros.get(id) ?? 0) + (profile.timeDeltas[index] ?? 0)));
  let total = 0;
  const byFunction = new Map<string, number>();
  const byPackage = new Map<string, number>();
  for (const [id, micros] of selfMicros) {
    const frame = byId.get(id)!.callFrame;
    total += micros;
    const name = `${frame.functionName || "(anonymous)"}  ${frame.url ? `${packageOf(frame.url)}:${path.basename(frame.url)}:${frame.lineNumber + 1}` : ""}`;
    byFunction.set(name, (byFunction.get(name) ?? 0) + micros);
    const pkg =
      frame.functionName === "(idle)" || frame.functionName === "(program)" || frame.functionName === "(garbage collector)"
        ? frame.functionName
        : packageOf(frame.url);
    byPackage.set(pkg, (byPackage.get(pkg) ?? 0) + micros);
  }
  const share = (micros: number) => `${((100 * micros) / total).toFixed(1).padStart(5)}%  ${(micros / 1000).toFixed(0).padStart(7)} ms`;
  const sorted = (map: Map<string, number>) => [...map].sort((a, b) => b[1] - a[1]).slice(0, top);
  return [
    `${file}: ${(total / 1000).toFixed(0)} ms sampled`,
    "self time by package:",
    ...sorted(byPackage).map(([name, micros]) => `  ${share(micros)}  ${name}`),
    "top functions by self time:",
    ...sorted(byFunction).map(([name, micros]) => `  ${share(micros)}  ${name}`),
  ].join("\n");
}

const args = process.argv.slice(2);
const topIndex = args.indexOf("--top");
const top = topIndex >= 0 ? Number(args[topIndex + 1]) : 25;
const files = topIndex >= 0 ? args.filter((_, index) => index !== topIndex && index !== topIndex + 1) : args;
if (files.length === 0) {
  console.error("usage: node --import tsx bench/profile-summary.ts <file.cpuprofile>... [--top N]");
  process.exit(2);
}
for (const file of files) console.log(`${summarize(file, top)}\n`);
