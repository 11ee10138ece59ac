/**
 * CONTRACT §6.15's headers and integer ranges, as the review found them missing: employee-reachable
 * 500s from out-of-range integers, no nosniff, no `Cache-Control: no-store` on responses carrying
 * secrets, and /docs keeping the password in localStorage without CSP or framing protection.
 */
import { beforeAll, describe, expect, it } from "vitest";
import { ADMIN_EMAIL, ADMIN_PASSWORD, useTestHub, type TestUser } from "./harness";
import { createAutomationWithWorker } from "./job-fixtures";

const hub = useTestHub();
let employee: TestUser;
beforeAll(async () => {
  employee = await hub.createUser("employee");
});

describe("integer ranges", () => {
  it("when an employee lists jobs with priority_min past 32 bits or outside −100…100, then 422 at query.priority_min, never 500", async () => {
    const huge = await hub.client.get("/jobs?priority_min=2147483648", { token: employee.token });
    const tooHigh = await hub.client.get("/jobs?priority_min=101", { token: employee.token });
    const tooLow = await hub.client.get("/jobs?priority_min=-101", { token: employee.token });
    const inRange = await hub.client.get("/jobs?priority_min=100", { token: employee.token });

    expect(huge.status).toBe(422);
    expect(huge.body.detail).toEqual([{ loc: ["query", "priority_min"], msg: "Input should be less than or equal to 100", type: "less_than_equal" }]);
    expect(tooHigh.body.detail[0].type).toBe("less_than_equal");
    expect(tooLow.body.detail).toEqual([{ loc: ["query", "priority_min"], msg: "Input should be greater than or equal to -100", type: "greater_than_equal" }]);
    expect(inRange.status).toBe(200);
  });

  it("when a worker sends an attempt past 32 bits, then 422 at body.attempt, never 500", async () => {
    const { workerKey } = await createAutomationWithWorker(hub);

    const result = await hub.client.post(`/jobs/${crypto.randomUUID()}/complete`, { result: {}, attempt: 2 ** 40 }, { workerKey });

    expect(result.status).toBe(422);
    expect(result.body.detail).toEqual([{ loc: ["body", "attempt"], msg: "Input should be less than or equal to 2147483647", type: "less_than_equal" }]);
  });
});

describe("headers", () => {
  it("when anything answers (JSON, 404, /metrics, /openapi.json), then it says X-Content-Type-Options: nosniff", async () => {
    const answers = await Promise.all([
      hub.client.get("/healthz"),
      hub.client.get("/no-such-route"),
      hub.client.get("/metrics"),
      hub.client.get("/openapi.json"),
      hub.client.get("/jobs", { token: employee.token }),
    ]);

    for (const answer of answers) expect(answer.headers.get("x-content-type-options")).toBe("nosniff");
  });

  it("when a response carries a token, an api key, a worker key or a webhook secret, then Cache-Control: no-store (a token also Pragma: no-cache); other responses do not", async () => {
    const token = await hub.client.post("/identity/token", { email: ADMIN_EMAIL, password: ADMIN_PASSWORD });
    const apiKey = await hub.client.post("/identity/api-keys", { name: "for the headers" }, { token: employee.token });
    const { automationId } = await createAutomationWithWorker(hub);
    const rotated = await hub.client.post(`/automations/${automationId}/worker/api-key`, undefined, { token: hub.adminToken });
    const list = await hub.client.get("/jobs", { token: employee.token });

    expect(token.status).toBe(200);
    expect(token.headers.get("cache-control")).toBe("no-store");
    expect(token.headers.get("pragma")).toBe("no-cache");
    expect(apiKey.status).toBe(201);
    expect(apiKey.headers.get("cache-control")).toBe("no-store");
    expect(rotated.headers.get("cache-control")).toBe("no-store");
    expect(list.headers.get("cache-control")).not.toBe("no-store");
  });

  it("when a user changes their own password, then the new token comes with Cache-Control: no-store and Pragma: no-cache", async () => {
    const user = await hub.createUser("employee");

    const changed = await hub.client.put(
      "/identity/me/password",
      { current_password: user.password, new_password: "a second long passphrase" },
      { token: user.token },
    );

    expect(changed.status).toBe(200);
    expect(changed.headers.get("cache-control")).toBe("no-store");
    expect(changed.headers.get("pragma")).toBe("no-cache");
  });

  it("when /docs is served, then it has a CSP with frame-ancestors 'none', X-Frame-Options DENY, no Referer, and Swagger UI does not persist what Authorize is given", async () => {
    const page = await fetch(`${hub.api.url}/docs`);
    const init = await (await fetch(`${hub.api.url}/docs/init.js`)).text();

    expect(page.headers.get("content-security-policy")).toContain("frame-ancestors 'none'");
    expect(page.headers.get("x-frame-options")).toBe("DENY");
    expect(page.headers.get("referrer-policy")).toBe("no-referrer");
    expect(init).not.toMatch(/persistAuthorization:\s*true/);
  });

  it("when /docs/assets/ is asked for anything but what /docs loads, then 404; the stylesheet and the bundle are served", async () => {
    const page = await (await fetch(`${hub.api.url}/docs`)).text();
    const loaded = [...page.matchAll(/(?:href|src)="(\/docs\/assets\/[^"]+)"/g)].map((match) => match[1]!);

    const answers = await Promise.all(loaded.map((asset) => fetch(`${hub.api.url}${asset}`)));
    const others = await Promise.all(
      ["index.html", "", "swagger-initializer.js", "oauth2-redirect.html", "swagger-ui-standalone-preset.js", "package.json", "swagger-ui-bundle.js.map"].map(
        (name) => fetch(`${hub.api.url}/docs/assets/${name}`),
      ),
    );

    expect(loaded).toEqual(["/docs/assets/swagger-ui.css", "/docs/assets/swagger-ui-bundle.js"]);
    expect(answers.map((answer) => answer.status)).toEqual([200, 200]);
    expect(answers[1]!.headers.get("content-type")).toContain("javascript");
    expect(others.map((answer) => answer.status)).toEqual([404, 404, 404, 404, 404, 404, 404]);
  });
});

describe("the OpenAPI document", () => {
  it("when an operation can answer 429 or 503, then the document declares it with Retry-After", async () => {
    const document = (await hub.client.get("/openapi.json")).body;

    const login = document.paths["/identity/token"].post.responses;
    const stream = document.paths["/events/stream"].get.responses;

    expect(login["429"].headers["Retry-After"].schema).toEqual({ type: "integer" });
    expect(login["503"].headers["Retry-After"].schema).toEqual({ type: "integer" });
    expect(stream["429"].headers["Retry-After"].schema).toEqual({ type: "integer" });
  });
});
