import { describe, expect, it } from "vitest";
import { useTestHub } from "./harness";

const hub = useTestHub();

describe("operations endpoints", () => {
  it("when the process is up, then /healthz answers 200", async () => {
    const result = await hub.client.get("/healthz");
    expect(result.status).toBe(200);
    expect(result.body).toEqual({ status: "ok" });
  });

  it("when PostgreSQL and Redis are reachable, then /readyz answers 200 with each check ok", async () => {
    const result = await hub.client.get("/readyz");
    expect(result.status).toBe(200);
    expect(result.body).toEqual({ status: "ok", checks: { database: "ok", redis: "ok" } });
  });

  it("when a route does not exist, then 404 with the contract body", async () => {
    const result = await hub.client.get("/no-such-route");
    expect(result.status).toBe(404);
    expect(result.body).toEqual({ detail: "Not Found" });
  });

  it("when a known path is called with the wrong method, then 405", async () => {
    const result = await hub.client.request("PATCH", "/healthz");
    expect(result.status).toBe(405);
  });

  it("when /openapi.json is fetched, then it is OpenAPI 3.1.0 version 1.0.0 describing the routes", async () => {
    const result = await hub.client.get("/openapi.json");
    expect(result.status).toBe(200);
    expect(result.body.openapi).toBe("3.1.0");
    expect(result.body.info.version).toBe("1.0.0");
    expect(Object.keys(result.body.paths)).toContain("/sectors/{sector_id}");
  });

  it("when /docs is fetched, then an HTML page loading Swagger UI is served", async () => {
    const page = await hub.client.get("/docs");
    expect(page.status).toBe(200);
    expect(String(page.body)).toContain("swagger-ui");
    const asset = await hub.client.get("/docs/assets/swagger-ui-bundle.js");
    expect(asset.status).toBe(200);
  });

  it("when /metrics is scraped, then Prometheus text with the request histogram is returned", async () => {
    const result = await hub.client.get("/metrics");
    expect(result.status).toBe(200);
    expect(String(result.body)).toContain("hub_http_request_duration_seconds");
  });
});
