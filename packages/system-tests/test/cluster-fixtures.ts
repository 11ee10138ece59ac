/**
 * What the Redis Cluster system tests share: which master holds a key, what each master served,
 * who is subscribed where (their load: job-load.ts).
 */
import type { Cluster } from "ioredis";
import type { PrivateRedisCluster } from "@hub/testing";

/** `host:port` of the master serving `key`'s slot, as the cluster connection last saw the slots. */
export async function masterOfKey(redis: Cluster, key: string): Promise<string> {
  const slot = Number(await redis.cluster("KEYSLOT", key));
  const owner = redis.slots[slot]?.[0];
  if (!owner) throw new Error(`no master known for slot ${slot} (${key})`);
  return owner;
}

/** `host:port` of each master of the private cluster, by index. */
export function masterAddresses(cluster: PrivateRedisCluster): string[] {
  return cluster.masters.map((master) => `127.0.0.1:${master.port}`);
}

/** Calls of one command on each master so far (INFO commandstats), by master index. */
export async function commandCalls(cluster: PrivateRedisCluster, command: string): Promise<number[]> {
  return Promise.all(
    cluster.masters.map(async (_, index) => {
      const stats = await cluster.cli(index, "INFO", "commandstats");
      const match = new RegExp(`^cmdstat_${command}:calls=(\\d+)`, "m").exec(stats);
      return match ? Number(match[1]) : 0;
    }),
  );
}

/** Keys matching `pattern` on master `index` (SCAN of that node only). */
export async function keysOnMaster(cluster: PrivateRedisCluster, index: number, pattern: string): Promise<string[]> {
  const output = await cluster.cli(index, "--scan", "--pattern", pattern);
  return output.split("\n").filter((line) => line.trim() !== "");
}

/** Index of the master a connection named `name` (or named after it) is subscribed on, or undefined. */
export async function masterSubscribedBy(cluster: PrivateRedisCluster, name: string): Promise<number | undefined> {
  for (let index = 0; index < cluster.masters.length; index++) {
    const clients = await cluster.cli(index, "CLIENT", "LIST");
    if (clients.split("\n").some((line) => line.includes(name) && / sub=[1-9]/.test(line))) return index;
  }
  return undefined;
}

/** Subscribers of `channel` over every master (PUBSUB NUMSUB is per node). */
export async function subscribersOf(cluster: PrivateRedisCluster, channel: string): Promise<number> {
  const counts = await Promise.all(
    cluster.masters.map(async (_, index) => Number((await cluster.cli(index, "PUBSUB", "NUMSUB", channel)).split("\n")[1] ?? 0)),
  );
  return counts.reduce((sum, count) => sum + count, 0);
}
