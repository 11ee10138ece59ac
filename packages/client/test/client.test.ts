/** The generated client against the real API (in-process) on PostgreSQL and Redis: log in, create a job, read it. */
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { ADMIN_EMAIL, ADMIN_PASSWORD, startTestHub, type TestHub } from "@hub/api/testing";
import { createHubClient, logIn, LoginError, type HubClient, type Job } from "../src/index";

let hub: TestHub;
let admin: HubClient;

beforeAll(async () => {
  hub = await startTestHub();
  admin = await logIn(hub.api.url, { email: ADMIN_EMAIL, password: ADMIN_PASSWORD });
});

afterAll(async () => {
  await hub?.stop();
});

describe("@hub/client", () => {
  it("when an admin logs in and creates a job, then reading it answers the typed job, queued with its context", async () => {
    const sector = await admin.POST("/sectors", { body: { name: `Finance ${Date.now()}`, color: "#1F77B4" } });
    const automation = await admin.POST("/automations", {
      body: {
        name: "Invoice export",
        slug: `invoice-export-${Date.now()}`,
        sector_id: sector.data!.id,
        parameters: [{ name: "month", description: "YYYY-MM" }],
      },
    });
    const created = await admin.POST("/jobs", {
      params: { header: { "idempotency-key": `export-${Date.now()}` } },
      body: { automation_id: automation.data!.id, context: { month: "2026-10" } },
    });
    expect(created.response.status).toBe(201);

    const { data, response } = await admin.GET("/jobs/{job_id}", { params: { path: { job_id: created.data!.id } } });
    const job: Job | undefined = data;

    expect(response.status).toBe(200);
    expect(job).toMatchObject({ id: created.data!.id, automation_id: automation.data!.id, status: "queued", context: { month: "2026-10" }, attempts: 0 });
  });

  it("when jobs are listed by context values, then the client sends them as the deepObject the document declares and the hub finds the job", async () => {
    const sector = await admin.POST("/sectors", { body: { name: `Sales ${Date.now()}`, color: "#1F77B4" } });
    const automation = await admin.POST("/automations", { body: { name: "Quotes", slug: `quotes-${Date.now()}`, sector_id: sector.data!.id } });
    const customer = `cust-${Date.now()}`;
    const created = await admin.POST("/jobs", { body: { automation_id: automation.data!.id, context: { customer_id: customer, region: "eu" } } });
    await admin.POST("/jobs", { body: { automation_id: automation.data!.id, context: { customer_id: customer, region: "us" } } });

    const { data, response } = await admin.GET("/jobs", { params: { query: { context: { customer_id: customer, region: "eu" } } } });

    expect(response.status).toBe(200);
    expect(data!.map((job) => job.id)).toEqual([created.data!.id]);
  });

  it("when a request is invalid, then `error` is the typed 422 body with every problem and `data` is undefined", async () => {
    const { data, error, response } = await admin.POST("/jobs", { body: { automation_id: "not-a-uuid" } });

    expect(response.status).toBe(422);
    expect(data).toBeUndefined();
    expect(error).toMatchObject({ detail: [{ loc: ["body", "automation_id"], type: "uuid_parsing" }] });
  });

  it("when no token is given, then bearer endpoints answer 401", async () => {
    const anonymous = createHubClient({ baseUrl: hub.api.url });

    const { response } = await anonymous.GET("/identity/me");

    expect(response.status).toBe(401);
  });

  it("when the password is wrong, then logIn rejects with LoginError 401", async () => {
    const failed = logIn(hub.api.url, { email: ADMIN_EMAIL, password: "not-the-password" });

    await expect(failed).rejects.toBeInstanceOf(LoginError);
    await expect(failed).rejects.toMatchObject({ status: 401, detail: "Incorrect email or password" });
  });
});
