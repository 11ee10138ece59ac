/**
 * CPU seconds spent by the processes of a run, read from /proc (Linux): the hub apps by pid, and
 * PostgreSQL and Redis by process name. On 2 cores this says where the time went, and how much
 * of it the benchmark's own driver took.
 *
 * PostgreSQL is shared with other users of the machine, so when the run's database is named its
 * CPU is split: `postgres` is every backend connected to that database (and autovacuum workers on
 * it), `pg-shared` the server's own processes (WAL writer, checkpointer, background writer…),
 * which work for every database; backends of other databases are left out (they land in `other`).
 */
import { readdirSync, readFileSync } from "node:fs";

/** USER_HZ: the unit of /proc/<pid>/stat times; 100 on every Linux this runs on. */
const TICKS_PER_SECOND = 100;

/** CPU ticks by label, and by pid for the process groups (PostgreSQL backends come and go). */
export interface CpuSnapshot {
  labelled: Map<string, number>;
  grouped: Map<CpuGroup, Map<number, number>>;
  /** Busy ticks of the whole machine (/proc/stat): what is left over is other work. */
  machineBusy: number;
}

function machineBusyTicks(): number {
  const fields = readFileSync("/proc/stat", "utf8").split("\n")[0]!.trim().split(/\s+/).slice(1).map(Number);
  // user nice system idle iowait irq softirq steal …: everything but idle and iowait is busy.
  return fields.reduce((sum, value) => sum + value, 0) - (fields[3] ?? 0) - (fields[4] ?? 0);
}

function cpuTicks(pid: number): { comm: string; ticks: number } | undefined {
  try {
    const stat = readFileSync(`/proc/${pid}/stat`, "utf8");
    // comm is in parentheses and may hold spaces; the fields after it are space-separated.
    const close = stat.lastIndexOf(")");
    const comm = stat.slice(stat.indexOf("(") + 1, close);
    const fields = stat.slice(close + 2).split(" ");
    // utime and stime are fields 14 and 15 of stat, i.e. 11 and 12 after "state" (field 3).
    return { comm, ticks: Number(fields[11]) + Number(fields[12]) };
  } catch {
    return undefined;
  }
}

type CpuGroup = "postgres" | "pg-shared" | "redis";

/** A client backend's title: `postgres: [cluster: ]user database host(port)|[local] state`. */
const CLIENT_BACKEND = /\S+ \S+ (?:\S*\(\d+\)|\[local\])/;

function commandLine(pid: number): string {
  try {
    return readFileSync(`/proc/${pid}/cmdline`, "utf8").replaceAll("\0", " ").trim();
  } catch {
    return "";
  }
}

let accountedCluster: string | undefined;

/**
 * Accounts only the PostgreSQL processes of the cluster named `clusterName` (its `cluster_name`,
 * which every process title of that cluster carries, and its postmaster's command line): the run's
 * private server, leaving the machine's other PostgreSQL servers to `other`.
 */
export function accountPostgresCluster(clusterName: string): void {
  accountedCluster = clusterName;
}

function inAccountedCluster(title: string): boolean {
  return accountedCluster === undefined || title.includes(`${accountedCluster}:`) || title.includes(`cluster_name=${accountedCluster}`);
}

let accountedRedisPid: number | undefined;

/** Accounts only the `redis-server` of this pid (the run's private server), leaving the machine's others to `other`. */
export function accountRedisServer(pid: number): void {
  accountedRedisPid = pid;
}

/** Which group a `postgres` process belongs to, or undefined when it serves another database or cluster. */
function postgresGroup(pid: number, database: string | undefined): CpuGroup | undefined {
  if (database === undefined && accountedCluster === undefined) return "postgres";
  const title = commandLine(pid);
  if (!inAccountedCluster(title)) return undefined;
  if (database === undefined) return "postgres";
  if (title.split(" ").includes(database)) return "postgres";
  return CLIENT_BACKEND.test(title) || title.includes("autovacuum worker") ? undefined : "pg-shared";
}

/**
 * CPU ticks of each named pid, and of every process named `postgres` or `redis-server`; with
 * `database`, PostgreSQL is split into that database's backends and the server's own processes.
 */
export function snapshotCpu(pids: Record<string, number | undefined>, database?: string): CpuSnapshot {
  const labelled = new Map<string, number>();
  for (const [label, pid] of Object.entries(pids)) {
    const sample = pid === undefined ? undefined : cpuTicks(pid);
    if (sample) labelled.set(label, sample.ticks);
  }
  const grouped: CpuSnapshot["grouped"] = new Map([
    ["postgres", new Map()],
    ["redis", new Map()],
  ]);
  if (database !== undefined) grouped.set("pg-shared", new Map());
  for (const entry of readdirSync("/proc")) {
    if (!/^\d+$/.test(entry)) continue;
    const pid = Number(entry);
    const sample = cpuTicks(pid);
    if (!sample) continue;
    const group =
      sample.comm === "redis-server"
        ? accountedRedisPid === undefined || accountedRedisPid === pid
          ? "redis"
          : undefined
        : sample.comm === "postgres"
          ? postgresGroup(pid, database)
          : undefined;
    if (group) grouped.get(group)!.set(pid, sample.ticks);
  }
  return { labelled, grouped, machineBusy: machineBusyTicks() };
}

/**
 * CPU seconds per label between two snapshots. A process of a group that started in between
 * counts from zero; one that exited in between takes its last ticks with it, so the PostgreSQL
 * figure is a lower bound when backends churn (the hub's pools keep theirs open).
 */
export function cpuSecondsBetween(before: CpuSnapshot, after: CpuSnapshot): Record<string, number> {
  const seconds: Record<string, number> = {};
  for (const [label, ticks] of after.labelled) seconds[label] = Math.max(0, ticks - (before.labelled.get(label) ?? 0)) / TICKS_PER_SECOND;
  for (const [group, processes] of after.grouped) {
    const earlier = before.grouped.get(group)!;
    let ticks = 0;
    for (const [pid, now] of processes) ticks += Math.max(0, now - (earlier.get(pid) ?? 0));
    seconds[group] = ticks / TICKS_PER_SECOND;
  }
  // Everything else the machine did meanwhile (other users' work, kernel threads): when this is
  // large, the figures were taken on a shared machine.
  const accounted = Object.values(seconds).reduce((sum, value) => sum + value, 0);
  seconds.other = Math.max(0, (after.machineBusy - before.machineBusy) / TICKS_PER_SECOND - accounted);
  return seconds;
}
