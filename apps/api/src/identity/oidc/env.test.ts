import { describe, expect, it } from "vitest";
import { loadApiEnv } from "../../env";
import { oidcSettings } from "./env";

const REQUIRED = { HUB_JWT_SECRET: "a-secret-that-is-at-least-32-characters-long" };
const SSO = {
  HUB_OIDC_ISSUER: "https://sso.example.com/realms/acme",
  HUB_OIDC_CLIENT_ID: "automation-hub",
  HUB_OIDC_CLIENT_SECRET: "s3cret",
  HUB_PUBLIC_URL: "https://hub.example.com/",
};

describe("single sign-on variables", () => {
  it("when none is set, then single sign-on is off and passwords are on", () => {
    const env = loadApiEnv(REQUIRED);
    expect(oidcSettings(env)).toBeUndefined();
    expect(env.HUB_PASSWORD_LOGIN).toBe(true);
  });

  it("when the four are set, then the defaults apply and the callback is under HUB_PUBLIC_URL", () => {
    expect(oidcSettings(loadApiEnv({ ...REQUIRED, ...SSO }))).toEqual({
      issuer: SSO.HUB_OIDC_ISSUER,
      clientId: "automation-hub",
      clientSecret: "s3cret",
      redirectUri: "https://hub.example.com/identity/oidc/callback",
      name: "single sign-on",
      autoCreate: false,
      defaultSectorIds: null,
    });
  });

  it("when only some are set, then start-up fails naming a missing one", () => {
    expect(() => loadApiEnv({ ...REQUIRED, HUB_OIDC_ISSUER: SSO.HUB_OIDC_ISSUER })).toThrow("Configuration error: HUB_OIDC_CLIENT_ID is required");
  });

  it("when the issuer is http://, then start-up fails unless HUB_OIDC_ALLOW_INSECURE=true", () => {
    const insecure = { ...REQUIRED, ...SSO, HUB_OIDC_ISSUER: "http://127.0.0.1:9000" };
    expect(() => loadApiEnv(insecure)).toThrow("Configuration error: HUB_OIDC_ISSUER is invalid: must be https://");
    expect(oidcSettings(loadApiEnv({ ...insecure, HUB_OIDC_ALLOW_INSECURE: "true" }))?.issuer).toBe("http://127.0.0.1:9000");
  });

  it("when default sectors are given, then they are read as a list; a non-id fails start-up", () => {
    const ids = ["0b9f1c8e-4f7a-4c1e-9a55-1d2b3c4d5e6f", "1c0a2d9f-5e8b-4d2f-8b66-2e3c4d5e6f70"];
    expect(oidcSettings(loadApiEnv({ ...REQUIRED, ...SSO, HUB_OIDC_DEFAULT_SECTOR_IDS: ` ${ids[0]}, ${ids[1]} ` }))?.defaultSectorIds).toEqual(ids);
    expect(() => loadApiEnv({ ...REQUIRED, ...SSO, HUB_OIDC_DEFAULT_SECTOR_IDS: "hr" })).toThrow("Configuration error: HUB_OIDC_DEFAULT_SECTOR_IDS is invalid");
  });

  it("when passwords are turned off without single sign-on, then start-up fails", () => {
    expect(() => loadApiEnv({ ...REQUIRED, HUB_PASSWORD_LOGIN: "false" })).toThrow(
      "Configuration error: HUB_PASSWORD_LOGIN is invalid: false needs single sign-on",
    );
    expect(loadApiEnv({ ...REQUIRED, ...SSO, HUB_PASSWORD_LOGIN: "false" }).HUB_PASSWORD_LOGIN).toBe(false);
  });
});
