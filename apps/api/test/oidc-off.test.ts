/** A hub without single sign-on (CONTRACT §6.22): its /identity/oidc/* routes answer 404, passwords work. */
import { describe, expect, it } from "vitest";
import { useTestHub } from "./harness";

const hub = useTestHub();

describe("single sign-on not configured", () => {
  it("when a browser starts single sign-on or sends a code, then 404, and the options say passwords only", async () => {
    expect((await fetch(`${hub.api.url}/identity/oidc/login`, { redirect: "manual" })).status).toBe(404);
    expect((await fetch(`${hub.api.url}/identity/oidc/callback?code=x&state=y`, { redirect: "manual" })).status).toBe(404);
    expect((await hub.client.post("/identity/oidc/token", { code: "x" })).status).toBe(404);
    expect((await hub.client.get("/identity/oidc/options")).body).toEqual({ password_login: true, sso: null });
    expect(hub.adminToken).not.toBe("");
  });
});
