import { randomBytes, randomUUID } from "node:crypto";
import { eq } from "drizzle-orm";
import { beforeAll, describe, expect, it } from "vitest";
import { schema } from "@hub/db";
import { useTestHub, type TestUser } from "./harness";

const hub = useTestHub();
let employee: TestUser;
beforeAll(async () => {
  employee = await hub.createUser("employee");
});

const uniqueName = (label = "Sector") => `${label} ${randomBytes(4).toString("hex")}`;

async function counts() {
  const db = hub.api.ctx.database.db;
  return {
    sectors: (await db.select({ id: schema.sectors.id }).from(schema.sectors)).length,
    events: (await db.select({ id: schema.events.id }).from(schema.events)).length,
  };
}

describe("POST /sectors", () => {
  it("when an admin creates a sector, then 201 {id}, it reads back and sector.created is recorded by that admin", async () => {
    const admin = await hub.createUser("admin");
    const name = uniqueName("Finance");

    const result = await hub.client.post("/sectors", { name, color: "#1A2b3C" }, { token: admin.token });

    expect(result.status).toBe(201);
    expect(result.body).toEqual({ id: expect.any(String) });
    const read = await hub.client.get(`/sectors/${result.body.id}`, { token: employee.token });
    expect(read.status).toBe(200);
    expect(read.body).toEqual({ id: result.body.id, name, color: "#1A2b3C", created_at: expect.any(String) });
    const recorded = await hub.api.ctx.database.db.select().from(schema.events).where(eq(schema.events.aggregateId, result.body.id));
    expect(recorded).toEqual([expect.objectContaining({ eventType: "sector.created", actorId: admin.id, payload: { name, color: "#1A2b3C" } })]);
  });

  it("when the name is taken, then 409 and no second sector or event", async () => {
    const name = uniqueName();
    await hub.client.post("/sectors", { name, color: "#000000" }, { token: hub.adminToken });
    const before = await counts();

    const result = await hub.client.post("/sectors", { name, color: "#FFFFFF" }, { token: hub.adminToken });

    expect(result.status).toBe(409);
    expect(result.body).toEqual({ detail: expect.any(String) });
    expect(await counts()).toEqual(before);
  });

  it("when the name is 100 characters, then it is accepted; 101 is refused", async () => {
    const base = uniqueName().padEnd(100, "x");

    const accepted = await hub.client.post("/sectors", { name: base, color: "#abcdef" }, { token: hub.adminToken });
    const refused = await hub.client.post("/sectors", { name: `${base}y`, color: "#abcdef" }, { token: hub.adminToken });

    expect(accepted.status).toBe(201);
    expect(refused.status).toBe(422);
    expect(refused.body.detail).toEqual([{ loc: ["body", "name"], msg: "String should have at most 100 characters", type: "string_too_long" }]);
  });

  it("when both fields are missing, then 422 lists both", async () => {
    const result = await hub.client.post("/sectors", {}, { token: hub.adminToken });

    expect(result.status).toBe(422);
    expect(result.body.detail).toEqual([
      { loc: ["body", "name"], msg: "Field required", type: "missing" },
      { loc: ["body", "color"], msg: "Field required", type: "missing" },
    ]);
  });

  it("when the name is empty and the color not #RRGGBB, then 422 reports both and nothing is created", async () => {
    const before = await counts();

    const result = await hub.client.post("/sectors", { name: "", color: "red" }, { token: hub.adminToken });

    expect(result.status).toBe(422);
    expect(result.body.detail).toEqual([
      { loc: ["body", "name"], msg: "String should have at least 1 character", type: "string_too_short" },
      { loc: ["body", "color"], msg: "String should match pattern '^#[0-9A-Fa-f]{6}$'", type: "string_pattern_mismatch" },
    ]);
    expect(await counts()).toEqual(before);
  });

  it.each(["#12345", "#1234567", "123456", "#GGGGGG", "#123456\n"])("when the color is %j, then 422 on body.color", async (color) => {
    const result = await hub.client.post("/sectors", { name: uniqueName(), color }, { token: hub.adminToken });

    expect(result.status).toBe(422);
    expect(result.body.detail.map((issue: { loc: unknown }) => issue.loc)).toEqual([["body", "color"]]);
  });

  it("when the fields have the wrong JSON types, then 422 string_type for each", async () => {
    const result = await hub.client.post("/sectors", { name: 7, color: null }, { token: hub.adminToken });

    expect(result.status).toBe(422);
    expect(result.body.detail).toEqual([
      { loc: ["body", "name"], msg: "Input should be a valid string", type: "string_type" },
      { loc: ["body", "color"], msg: "Input should be a valid string", type: "string_type" },
    ]);
  });

  it("when an employee creates a sector, then 403 and nothing is created", async () => {
    const before = await counts();

    const result = await hub.client.post("/sectors", { name: uniqueName(), color: "#123456" }, { token: employee.token });

    expect(result.status).toBe(403);
    expect(result.body).toEqual({ detail: expect.any(String) });
    expect(await counts()).toEqual(before);
  });

  it("when no token is sent, then 401 with WWW-Authenticate: Bearer", async () => {
    const result = await hub.client.post("/sectors", { name: uniqueName(), color: "#123456" });

    expect(result.status).toBe(401);
    expect(result.headers.get("www-authenticate")).toBe("Bearer");
  });
});

describe("GET /sectors and /sectors/{sector_id}", () => {
  it("when an employee lists sectors, then every sector is returned, oldest first", async () => {
    const names = [uniqueName("Zulu"), uniqueName("Alpha")];
    for (const name of names) await hub.client.post("/sectors", { name, color: "#123456" }, { token: hub.adminToken });

    const result = await hub.client.get("/sectors", { token: employee.token });

    expect(result.status).toBe(200);
    const listed = (result.body as { name: string }[]).map((sector) => sector.name);
    expect(listed).toEqual(expect.arrayContaining(names));
    expect(listed.indexOf(names[0]!)).toBeLessThan(listed.indexOf(names[1]!));
    expect(result.body[0]).toEqual({ id: expect.any(String), name: expect.any(String), color: expect.any(String), created_at: expect.any(String) });
  });

  it("when the sector is unknown, then 404", async () => {
    const result = await hub.client.get(`/sectors/${randomUUID()}`, { token: employee.token });

    expect(result.status).toBe(404);
    expect(result.body).toEqual({ detail: expect.any(String) });
  });

  it("when the sector id is not a uuid, then 422 on path.sector_id", async () => {
    const result = await hub.client.get("/sectors/not-a-uuid", { token: employee.token });

    expect(result.status).toBe(422);
    expect(result.body.detail).toEqual([{ loc: ["path", "sector_id"], msg: "Input should be a valid UUID", type: "uuid_parsing" }]);
  });

  it("when no token is sent, then 401", async () => {
    expect((await hub.client.get("/sectors")).status).toBe(401);
    expect((await hub.client.get(`/sectors/${randomUUID()}`)).status).toBe(401);
  });
});
