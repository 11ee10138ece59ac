// Preloaded into a hub process (NODE_OPTIONS=--import=…) by `BENCH_CPU_PROF`: Node 20 refuses
// --cpu-prof in NODE_OPTIONS, so this records the same V8 CPU profile through the inspector and
// writes it on exit to $BENCH_CPU_PROFILE_DIR/<$BENCH_CPU_PROFILE_NAME>-<pid>.cpuprofile.
// The in-process inspector session answers synchronously, which is what lets the 'exit' hook
// stop the profiler and write the file.
//
// A mode that wants one phase only (the timed mode's idle window) sends SIGUSR2 twice: the first
// discards what was recorded so far and starts again, the second writes the profile then and stops.
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
  let recording = true;
  let phaseSignals = 0;
  const write = () => {
    if (!recording) return;
    recording = false;
    session.post("Profiler.stop", (error, result) => {
      if (error || !result) return;
      mkdirSync(directory, { recursive: true });
      writeFileSync(path.join(directory, `${name}-${process.pid}.cpuprofile`), JSON.stringify(result.profile));
    });
  };
  process.on("SIGUSR2", () => {
    phaseSignals++;
    if (phaseSignals === 1) {
      session.post("Profiler.stop");
      session.post("Profiler.start");
    } else write();
  });
  process.on("exit", write);
}
