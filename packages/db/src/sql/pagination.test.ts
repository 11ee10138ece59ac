/**
 * Keyset pagination against the real database, through two lists: sectors (oldest first) and
 * jobs (newest first). A walk visits every row once in (created_at, id) order, ties included,
 * and stays exact while rows arrive.
 */
import { EVERYWHERE } from "../reach";
import { randomBytes } from "node:crypto";
import { beforeEach, describe, expect, it } from "vitest";
import { jobs, schema, sectors } from "../index";
import { stageAutomation, useTestDatabase } from "../test-kit";
import type { KeysetPage, KeysetPageRequest } from "./pagination";

const hub = useTestDatabase();

/** Sectors inserted by one statement: they share one `created_at`, so only the id orders them. */
async function insertSectorsTogether(count: number): Promise<void> {
  const suffix = randomBytes(4).toString("hex");
  await hub()
    .db.insert(schema.sectors)
    .values(Array.from({ length: count }, (_, index) => ({ name: `sector ${suffix} ${index}`, color: "#654321" })));
}

/** Follows `next` from the first page to the last; `between` runs after each page. */
async function walk<T>(list: (page: KeysetPageRequest) => Promise<KeysetPage<T>>, limit: number, between: () => Promise<void> = async () => undefined) {
  const pages: T[][] = [];
  let page = await list({ limit });
  pages.push(page.items);
  while (page.next) {
    await between();
    page = await list({ limit, after: page.next });
    pages.push(page.items);
  }
  return pages;
}

describe("keyset pages, oldest first (GET /sectors)", () => {
  // Each test walks every sector, so it starts from none (no automation refers to them yet).
  beforeEach(async () => {
    await hub().db.delete(schema.sectors);
  });

  it("when rows tie on created_at, then a walk still visits each once, ordered by (created_at, id), and the last page has no next", async () => {
    await insertSectorsTogether(7);

    const pages = await walk((page) => sectors.list(hub().pool, EVERYWHERE, page), 3);

    expect(pages.map((items) => items.length)).toEqual([3, 3, 1]);
    const walked = pages.flat();
    const expected = [...walked].sort((a, b) => a.createdAt.getTime() - b.createdAt.getTime() || a.id.localeCompare(b.id));
    expect(walked.map((sector) => sector.id)).toEqual(expected.map((sector) => sector.id));
    expect(new Set(walked.map((sector) => sector.id)).size).toBe(7);
  });

  it("when the rows fill the last page exactly, then that page says no more follow", async () => {
    await insertSectorsTogether(4);

    const first = await sectors.list(hub().pool, EVERYWHERE, { limit: 4 });

    expect(first.items).toHaveLength(4);
    expect(first.next).toBeUndefined();
  });

  it("when rows arrive during a walk, then none is visited twice and the new ones are visited at its end", async () => {
    await insertSectorsTogether(5);
    let arrivals = 0;

    const pages = await walk(
      (page) => sectors.list(hub().pool, EVERYWHERE, page),
      2,
      async () => {
        if (arrivals++ < 2) await insertSectorsTogether(1);
      },
    );

    const names = pages.flat().map((sector) => sector.name);
    expect(names).toHaveLength(7);
    expect(new Set(names).size).toBe(7);
  });
});

describe("keyset pages, newest first (GET /jobs)", () => {
  it("when jobs of one batch share created_at, then a walk visits each once, newest (created_at, id) first", async () => {
    const { automationId, userId } = await stageAutomation(hub());
    await jobs.insertBatch(
      hub().pool,
      EVERYWHERE,
      userId,
      Array.from({ length: 5 }, (_, n) => ({ automationId, context: { n } })),
    );
    await jobs.insertBatch(
      hub().pool,
      EVERYWHERE,
      userId,
      Array.from({ length: 4 }, (_, n) => ({ automationId, context: { n: 5 + n } })),
    );

    const pages = await walk((page) => jobs.list(hub().pool, EVERYWHERE, { automationId }, page), 4);

    const walked = pages.flat();
    expect(pages.map((items) => items.length)).toEqual([4, 4, 1]);
    const expected = [...walked].sort((a, b) => b.createdAt.getTime() - a.createdAt.getTime() || b.id.localeCompare(a.id));
    expect(walked.map((job) => job.id)).toEqual(expected.map((job) => job.id));
    expect(new Set(walked.map((job) => job.id)).size).toBe(9);
  });
});
