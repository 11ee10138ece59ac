/** withTransaction and queryBuilder against the real database: one helper for every transaction. */
import { randomBytes } from "node:crypto";
import { eq } from "drizzle-orm";
import { describe, expect, it } from "vitest";
import { openDedicatedSession } from "./session";
import { queryBuilder, withTransaction } from "./executor";
import { schema } from "./index";
import { useTestDatabase } from "./test-kit";

const hub = useTestDatabase();

function sectorName(): string {
  return `executor ${randomBytes(4).toString("hex")}`;
}

async function sectorExists(name: string): Promise<boolean> {
  const rows = await queryBuilder(hub().pool).select({ id: schema.sectors.id }).from(schema.sectors).where(eq(schema.sectors.name, name));
  return rows.length > 0;
}

async function insertSector(executor: Parameters<typeof queryBuilder>[0], name: string): Promise<void> {
  await queryBuilder(executor).insert(schema.sectors).values({ name, color: "#000000" });
}

describe("withTransaction", () => {
  it("when work resolves on the pool, then its writes commit together and the connection goes back to the pool", async () => {
    const [first, second] = [sectorName(), sectorName()];

    const result = await withTransaction(hub().pool, async (client) => {
      await insertSector(client, first);
      await insertSector(client, second);
      return "done";
    });

    expect(result).toBe("done");
    expect([await sectorExists(first), await sectorExists(second)]).toEqual([true, true]);
    expect(hub().pool.totalCount - hub().pool.idleCount).toBe(0);
  });

  it("when work throws on the pool, then nothing it wrote is kept, the error is the caller's and the connection goes back", async () => {
    const name = sectorName();

    const outcome = withTransaction(hub().pool, async (client) => {
      await insertSector(client, name);
      throw new Error("refused");
    });

    await expect(outcome).rejects.toThrow("refused");
    expect(await sectorExists(name)).toBe(false);
    expect(hub().pool.totalCount - hub().pool.idleCount).toBe(0);
  });

  it("when a nested withTransaction throws, then only its writes are rolled back (a savepoint) and the outer ones commit", async () => {
    const [outer, inner, afterwards] = [sectorName(), sectorName(), sectorName()];

    await withTransaction(hub().pool, async (client) => {
      await insertSector(client, outer);
      await expect(
        withTransaction(client, async (nested) => {
          await insertSector(nested, inner);
          throw new Error("inner refused");
        }),
      ).rejects.toThrow("inner refused");
      await withTransaction(client, (nested) => insertSector(nested, afterwards));
    });

    expect([await sectorExists(outer), await sectorExists(inner), await sectorExists(afterwards)]).toEqual([true, false, true]);
  });

  it("when given a dedicated session, then the transaction runs on that session and commits or rolls back there", async () => {
    const session = await openDedicatedSession(hubUrl(), { applicationName: "executor-test" });
    try {
      const [kept, dropped] = [sectorName(), sectorName()];
      const backend = async () => (await session.query<{ pid: number }>({ text: "select pg_backend_pid() as pid" })).rows[0]!.pid;
      const sessionPid = await backend();

      const seenPid = await withTransaction(session, async (client) => {
        await insertSector(client, kept);
        return (await client.query<{ pid: number }>({ text: "select pg_backend_pid() as pid" })).rows[0]!.pid;
      });
      await expect(
        withTransaction(session, async (client) => {
          await insertSector(client, dropped);
          throw new Error("refused");
        }),
      ).rejects.toThrow("refused");

      expect(seenPid).toBe(sessionPid);
      expect([await sectorExists(kept), await sectorExists(dropped)]).toEqual([true, false]);
    } finally {
      await session.close();
    }
  });
});

describe("queryBuilder", () => {
  it("when asked twice for one executor, then it hands back the same builder, and a different one for another executor", async () => {
    const client = await hub().pool.connect();
    try {
      expect(queryBuilder(hub().pool)).toBe(queryBuilder(hub().pool));
      expect(queryBuilder(client)).toBe(queryBuilder(client));
      expect(queryBuilder(client)).not.toBe(queryBuilder(hub().pool));
    } finally {
      client.release();
    }
  });
});

function hubUrl(): string {
  const options = hub().pool.options as { connectionString?: string };
  if (!options.connectionString) throw new Error("the test pool has no connection string");
  return options.connectionString;
}
