// Preloaded into a hub process (NODE_OPTIONS=--import=…) by `BENCH_CPU_PROF`: Node 20 refuses
// --cpu-prof in NODE_OPTIONS, so this records the same V8 CPU profile through the inspector and
// writes it on exit to $BENCH_CPU_PROFILE_DIR/<$BENCH_CPU_PROFILE_NAME>-<pid>.cpuprofile.
// The in-process inspector session answers synchronously, which is what lets the 'exit' hook
// stop the profiler and write the file.
import { Session } from "node:inspector";
import { mkdirSync, writeFileSync } from "node:fs";
import path from "node:path";
import process from "node:process";

const directory = process.env.BENCH_CPU_PROFILE_DIR;
const name = process.env.BENCH_CPU_PROFILE_NAME ?? "process";

if (directory) {
  const session = new Session();
  session.connect();
  session.post("Profiler.enable");
  session.post("Profiler.start");
  process.on("exit", () => {
    session.post("Profiler.stop", (error, result) => {
      if (error || !result) return;
      mkdirSync(directory, { recursive: true });
      writeFileSync(path.join(directory, `${name}-${process.pid}.cpuprofile`), JSON.stringify(result.profile));
    });
  });
}
