/**
 * The single sign-on variables of the API (CONTRACT §5, §6.22): spread into the API's env schema,
 * with {@link checkOidcEnv} as its refinement (the four that switch it on: all or none).
 */
import { z } from "zod";
import { envHelpers } from "@hub/shared";

const { optionalString, boolFromEnv } = envHelpers;

/** Comma-separated sector ids (blanks ignored); unset → undefined (every sector). */
const sectorIdsFromEnv = () =>
  z.preprocess(
    (v) =>
      v === undefined || v === ""
        ? undefined
        : String(v)
            .split(",")
            .map((id) => id.trim())
            .filter((id) => id !== ""),
    z.array(z.uuid("must be comma-separated sector ids")).optional(),
  );

export const oidcEnvShape = {
  /** The OpenID provider's issuer URL; its /.well-known/openid-configuration is read from it. */
  HUB_OIDC_ISSUER: optionalString(),
  HUB_OIDC_CLIENT_ID: optionalString(),
  HUB_OIDC_CLIENT_SECRET: optionalString(),
  /** The hub's URL as browsers reach it: the redirect URI is `<HUB_PUBLIC_URL>/identity/oidc/callback`. */
  HUB_PUBLIC_URL: optionalString(),
  /** What the console's button says: "Sign in with <name>". */
  HUB_OIDC_NAME: z.preprocess((v) => (v === "" ? undefined : v), z.string().default("single sign-on")),
  /** Creates an employee on a first sign-in with an unknown, verified e-mail. */
  HUB_OIDC_AUTO_CREATE: boolFromEnv(false),
  /** The sectors of an auto-created employee; unset: every sector. */
  HUB_OIDC_DEFAULT_SECTOR_IDS: sectorIdsFromEnv(),
  /** Admits an `http://` issuer (tests, a provider on localhost). */
  HUB_OIDC_ALLOW_INSECURE: boolFromEnv(false),
  /** false: POST /identity/token refuses passwords (the break-glass CLI still works). */
  HUB_PASSWORD_LOGIN: boolFromEnv(true),
};

const SWITCHES = ["HUB_OIDC_ISSUER", "HUB_OIDC_CLIENT_ID", "HUB_OIDC_CLIENT_SECRET", "HUB_PUBLIC_URL"] as const;

type OidcEnvValues = z.output<z.ZodObject<typeof oidcEnvShape>>;

/** The four switches all or none; the URLs absolute, the issuer https unless insecure is allowed; passwords off only with them. */
export function checkOidcEnv(env: OidcEnvValues, ctx: z.RefinementCtx): void {
  const set = SWITCHES.filter((name) => env[name] !== undefined);
  if (set.length === 0) {
    // Passwords off with no single sign-on would leave nobody a way in but the command line.
    if (!env.HUB_PASSWORD_LOGIN) ctx.addIssue({ code: "custom", path: ["HUB_PASSWORD_LOGIN"], message: `false needs single sign-on (${SWITCHES.join(", ")})` });
    return;
  }
  for (const name of SWITCHES) {
    if (env[name] === undefined) ctx.addIssue({ code: "custom", path: [name], message: `is required with ${set.join(", ")}` });
  }
  if (set.length < SWITCHES.length) return;
  for (const name of ["HUB_OIDC_ISSUER", "HUB_PUBLIC_URL"] as const) {
    if (!URL.canParse(env[name]!)) ctx.addIssue({ code: "custom", path: [name], message: "must be an absolute URL" });
  }
  const issuer = URL.canParse(env.HUB_OIDC_ISSUER!) ? new URL(env.HUB_OIDC_ISSUER!) : undefined;
  if (issuer && issuer.protocol !== "https:" && !(issuer.protocol === "http:" && env.HUB_OIDC_ALLOW_INSECURE)) {
    ctx.addIssue({ code: "custom", path: ["HUB_OIDC_ISSUER"], message: "must be https:// (http:// only with HUB_OIDC_ALLOW_INSECURE=true)" });
  }
}

/** The single sign-on settings when all four switches are set, else undefined. */
export interface OidcSettings {
  issuer: string;
  clientId: string;
  clientSecret: string;
  redirectUri: string;
  name: string;
  autoCreate: boolean;
  defaultSectorIds: string[] | null;
}

export function oidcSettings(env: OidcEnvValues): OidcSettings | undefined {
  const { HUB_OIDC_ISSUER: issuer, HUB_OIDC_CLIENT_ID: clientId, HUB_OIDC_CLIENT_SECRET: clientSecret, HUB_PUBLIC_URL: publicUrl } = env;
  if (!issuer || !clientId || !clientSecret || !publicUrl) return undefined;
  return {
    issuer,
    clientId,
    clientSecret,
    redirectUri: `${publicUrl.replace(/\/+$/, "")}/identity/oidc/callback`,
    name: env.HUB_OIDC_NAME,
    autoCreate: env.HUB_OIDC_AUTO_CREATE,
    defaultSectorIds: env.HUB_OIDC_DEFAULT_SECTOR_IDS ?? null,
  };
}
