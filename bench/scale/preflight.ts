/** The size of the seeded history at a BENCH_SCALE, and the checks before seeding it (CI, free disk). */
import { statfs } from "node:fs/promises";
import pg from "pg";
import type { BenchConfig } from "../lib/config";

/** The counts at BENCH_SCALE=1. */
const FULL = { automations: 10_000, jobs: 5_000_000, events: 20_000_000 };
/** Each seeded job has 3 events; the rest of the events are the self-growing kinds. */
export const EVENTS_PER_JOB = 3;
/**
 * Bytes on disk per seeded row, heap and indexes together, with margin: measured at BENCH_SCALE=0.1
 * (this mode prints the real figures; docs/CAPACITY.md has them) and rounded up.
 */
const ESTIMATED_BYTES = { job: 800, event: 600 };
/** Free space asked for beyond the estimate: WAL, the vacuum after the sweep, the hub's own rows. */
const DISK_HEADROOM = 2;
export const RETENTION_DAYS = 30;
export const HISTORY_DAYS = 60;

export interface ScaleCounts {
  automations: number;
  jobs: number;
  events: number;
}

export function scaleCounts(scale: number): ScaleCounts {
  const jobs = Math.max(1, Math.round(FULL.jobs * scale));
  return {
    automations: Math.max(1, Math.round(FULL.automations * scale)),
    jobs,
    events: Math.max(jobs * EVENTS_PER_JOB, Math.round(FULL.events * scale)),
  };
}

/**
 * Checks, before anything is built or seeded, that this is not CI and that PostgreSQL's data
 * directory has room for the seeded rows (with {@link DISK_HEADROOM}); prints why when not.
 */
export async function scalePreflight(config: BenchConfig): Promise<boolean> {
  const counts = scaleCounts(config.scale.scale);
  console.error(`bench: scale: BENCH_SCALE=${config.scale.scale}: ${counts.automations} automations, ${counts.jobs} jobs, ${counts.events} events`);
  if (process.env.CI) {
    console.error("bench: scale: refusing to run in CI (CI is set): this mode seeds gigabytes and takes many minutes");
    return false;
  }
  const needed = DISK_HEADROOM * (counts.jobs * ESTIMATED_BYTES.job + counts.events * ESTIMATED_BYTES.event);
  const client = new pg.Client({ connectionString: config.databaseServerUrl });
  let directory: string;
  try {
    await client.connect();
    directory = (await client.query<{ data_directory: string }>("show data_directory")).rows[0]!.data_directory;
  } catch (error) {
    console.error(`bench: scale: refusing: cannot read PostgreSQL's data_directory to check its free disk (${(error as Error).message})`);
    return false;
  } finally {
    await client.end().catch(() => undefined);
  }
  let free: number;
  try {
    const stats = await statfs(directory);
    free = stats.bavail * stats.bsize;
  } catch (error) {
    console.error(`bench: scale: refusing: cannot check the free disk of ${directory} (${(error as Error).message}); run it on the database's host`);
    return false;
  }
  const gb = (bytes: number) => `${(bytes / 1e9).toFixed(1)} GB`;
  if (free < needed) {
    console.error(
      `bench: scale: refusing: ${directory} has ${gb(free)} free, the seeded history needs about ${gb(needed)} ` +
        `(${DISK_HEADROOM} × ${counts.jobs} jobs × ${ESTIMATED_BYTES.job} B + ${counts.events} events × ${ESTIMATED_BYTES.event} B); lower BENCH_SCALE`,
    );
    return false;
  }
  console.error(`bench: scale: ${directory} has ${gb(free)} free, about ${gb(needed)} needed`);
  return true;
}
