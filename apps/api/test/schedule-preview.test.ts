/** CONTRACT §6.14: GET /schedules/preview lists a cron expression's next fire times, checked as a schedule's. */
import { beforeAll, describe, expect, it } from "vitest";
import { useTestHub, type HttpResult, type TestUser } from "./harness";

const hub = useTestHub();
let employee: TestUser;

beforeAll(async () => {
  employee = await hub.createUser("employee");
});

/** GET /schedules/preview as the employee (`null`: without credentials). */
const preview = (query: string, token: string | null = employee.token): Promise<HttpResult<any>> =>
  hub.client.get(`/schedules/preview?${query}`, token === null ? {} : { token });

/** Weekday, hour and minute of `iso` on the wall clock of `timeZone`. */
function wallClock(iso: string, timeZone: string): { weekday: string; time: string } {
  const parts = Object.fromEntries(
    new Intl.DateTimeFormat("en-GB", { timeZone, weekday: "short", hour: "2-digit", minute: "2-digit", hourCycle: "h23" })
      .formatToParts(new Date(iso))
      .map((part) => [part.type, part.value]),
  );
  return { weekday: parts.weekday!, time: `${parts.hour}:${parts.minute}` };
}

describe("GET /schedules/preview", () => {
  it("when an employee previews a weekday expression in a time zone, then 200 with the next five fire times at that wall-clock time, in order", async () => {
    const answer = await preview(`cron=${encodeURIComponent("0 6 * * MON-FRI")}&timezone=Europe/Berlin`);

    expect(answer.status).toBe(200);
    expect(Object.keys(answer.body)).toEqual(["next"]);
    const next: string[] = answer.body.next;
    expect(next).toHaveLength(5);
    for (const fire of next) {
      expect(fire).toMatch(/^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}\.\d{3}Z$/);
      expect(wallClock(fire, "Europe/Berlin")).toMatchObject({ time: "06:00" });
      expect(["Mon", "Tue", "Wed", "Thu", "Fri"]).toContain(wallClock(fire, "Europe/Berlin").weekday);
    }
    expect([...next].sort()).toEqual(next);
    expect(new Date(next[0]!).getTime()).toBeGreaterThan(Date.now() - 5_000);
  });

  it("when count and the nicknames are used, then that many fire times; without a time zone they are read in UTC", async () => {
    const answer = await preview("cron=@hourly&count=20");
    expect(answer.status).toBe(200);
    expect(answer.body.next).toHaveLength(20);
    const gaps = answer.body.next.slice(1).map((fire: string, i: number) => new Date(fire).getTime() - new Date(answer.body.next[i]).getTime());
    expect(new Set(gaps)).toEqual(new Set([3_600_000]));
    expect(answer.body.next.every((fire: string) => fire.endsWith(":00:00.000Z"))).toBe(true);
  });

  it("when fewer fire times than count fall within 4 years, then only those are listed", async () => {
    const answer = await preview(`cron=${encodeURIComponent("0 0 29 2 *")}&count=20`);
    expect(answer.status).toBe(200);
    expect(answer.body.next.length).toBeGreaterThanOrEqual(1);
    expect(answer.body.next.length).toBeLessThanOrEqual(2);
    expect(answer.body.next.every((fire: string) => fire.slice(5, 10) === "02-29")).toBe(true);
  });

  it("when the expression, time zone or count is wrong, then 422 at [query, <name>] with every problem, as creating a schedule says", async () => {
    const all = await preview(`cron=${encodeURIComponent("61 * * * *")}&timezone=${encodeURIComponent("+01:00")}&count=21`);
    expect(all.status).toBe(422);
    expect(all.body.detail).toEqual([
      expect.objectContaining({ loc: ["query", "cron"], type: "value_error" }),
      expect.objectContaining({ loc: ["query", "timezone"], type: "value_error" }),
      expect.objectContaining({ loc: ["query", "count"], type: "less_than_equal" }),
    ]);
    expect((await preview("cron=@daily&count=0")).body.detail).toEqual([expect.objectContaining({ loc: ["query", "count"], type: "greater_than_equal" })]);
    expect((await preview("cron=@daily&timezone=Mars/Olympus")).body.detail).toEqual([
      expect.objectContaining({ loc: ["query", "timezone"], type: "value_error" }),
    ]);
  });

  it("when the expression never fires within 4 years, or has a seconds field the hub does not allow, then 422 value_error at [query, cron]", async () => {
    for (const cron of ["0 0 30 2 *", "*/5 * * * * *"]) {
      const answer = await preview(`cron=${encodeURIComponent(cron)}`);
      expect(answer.status, cron).toBe(422);
      expect(answer.body.detail, cron).toEqual([expect.objectContaining({ loc: ["query", "cron"], type: "value_error" })]);
    }
  });

  it("when cron is missing, then 422 missing at [query, cron]: preview is never read as a schedule id", async () => {
    const answer = await preview("");
    expect(answer.status).toBe(422);
    expect(answer.body.detail).toEqual([{ loc: ["query", "cron"], msg: "Field required", type: "missing" }]);
    expect((await preview("cron=@daily&schedule=1")).body.detail).toEqual([expect.objectContaining({ loc: ["query", "schedule"], type: "extra_forbidden" })]);
  });

  it("when nobody signs in, then 401", async () => {
    expect((await preview("cron=@daily", null)).status).toBe(401);
  });
});
