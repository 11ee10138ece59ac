/**
 * A real OpenID provider for the single sign-on tests (the `oidc-provider` package, with its
 * development interactions), and a browser-like walk through its redirects: cookies kept per
 * name, every redirect followed by hand so each hop can be checked.
 */
import { createServer, type Server } from "node:http";
import type { AddressInfo } from "node:net";
import Provider from "oidc-provider";

export const CLIENT_ID = "hub-test";
export const CLIENT_SECRET = "hub-test-secret-that-is-long-enough";

export interface TestAccount {
  email: string;
  email_verified?: boolean;
}

/** A free TCP port on 127.0.0.1 (listen on 0, read it, close). */
export async function freePort(): Promise<number> {
  const server = createServer();
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
  const { port } = server.address() as AddressInfo;
  await new Promise<void>((resolve) => server.close(() => resolve()));
  return port;
}

export interface TestProvider {
  issuer: string;
  /** Accounts by account id (what the login form's `login` field names). */
  accounts: Map<string, TestAccount>;
  stop(): Promise<void>;
}

export interface ProviderOptions {
  /** The provider's signing keys (private JWKs); unset, oidc-provider's development key. */
  signingKeys?: Array<Record<string, unknown>>;
  /** Rewrites the ID token of each token-endpoint answer (a provider or channel gone wrong); unset, none. */
  rewriteIdToken?: () => ((idToken: string) => Promise<string>) | undefined;
}

/** Starts the provider on `port`, with one client whose redirect URIs are the hubs' callbacks. */
export async function startProvider(port: number, redirectUris: string[], options: ProviderOptions = {}): Promise<TestProvider> {
  const issuer = `http://127.0.0.1:${port}`;
  const accounts = new Map<string, TestAccount>();
  const provider = new Provider(issuer, {
    clients: [
      { client_id: CLIENT_ID, client_secret: CLIENT_SECRET, redirect_uris: redirectUris, grant_types: ["authorization_code"], response_types: ["code"] },
    ],
    claims: { email: ["email", "email_verified"] },
    // As Keycloak, Entra ID and Google do: the e-mail claims in the ID token itself.
    conformIdTokenClaims: false,
    features: { devInteractions: { enabled: true } },
    cookies: { keys: ["test-cookie-key-1"] },
    ...(options.signingKeys ? { jwks: { keys: options.signingKeys } } : {}),
    findAccount: (_ctx, sub) => {
      const account = accounts.get(sub);
      return account ? { accountId: sub, claims: () => ({ sub, ...account }) } : undefined;
    },
  });
  const { rewriteIdToken } = options;
  if (rewriteIdToken)
    provider.use(async (ctx, next) => {
      await next();
      const rewrite = rewriteIdToken();
      const body = ctx.body as { id_token?: unknown } | undefined;
      if (ctx.path === "/token" && rewrite && typeof body?.id_token === "string") body.id_token = await rewrite(body.id_token);
    });
  // A provider bug would otherwise show only as a 500 page in the middle of a redirect chain.
  provider.on("server_error", (_ctx, error) => process.stderr.write(`oidc-provider server_error: ${error.stack ?? error.message}\n`));
  const server: Server = createServer(provider.callback());
  await new Promise<void>((resolve) => server.listen(port, "127.0.0.1", resolve));
  return {
    issuer,
    accounts,
    stop: () =>
      new Promise<void>((resolve) => {
        server.closeAllConnections();
        server.close(() => resolve());
      }),
  };
}

/** A browser's cookies, by name (every test server is 127.0.0.1; their cookie names differ). */
export class Browser {
  readonly cookies = new Map<string, string>();

  async request(url: string, init: RequestInit = {}): Promise<Response> {
    const cookie = [...this.cookies].map(([name, value]) => `${name}=${value}`).join("; ");
    const response = await fetch(url, { ...init, redirect: "manual", headers: { ...(init.headers as Record<string, string>), ...(cookie ? { cookie } : {}) } });
    for (const line of response.headers.getSetCookie()) {
      const [pair, ...attributes] = line.split(";");
      const [name, ...value] = pair!.trim().split("=");
      const expired = attributes.some((a) => /^\s*max-age=0\s*$/i.test(a) || /^\s*expires=Thu, 01 Jan 1970/i.test(a));
      if (expired) this.cookies.delete(name!);
      else this.cookies.set(name!, value.join("="));
    }
    return response;
  }

  /** Follows redirects from `url` until one leads to `stopAt` (returned, not followed) or a page answers. */
  async follow(url: string, stopAt: string): Promise<Response> {
    let response = await this.request(url);
    for (let hop = 0; hop < 10; hop++) {
      const location = response.headers.get("location");
      if (!location || location.startsWith(stopAt)) return response;
      response = await this.request(new URL(location, response.url || url).href);
    }
    throw new Error("too many redirects");
  }
}

/**
 * Signs in at the provider as `accountId` from the hub's login redirect: the development login
 * form, then its consent form; answers the provider's redirect to the hub's callback (not followed).
 */
export async function signInAtProvider(browser: Browser, authorizationUrl: string, accountId: string, callbackUrl: string): Promise<Response> {
  let response = await browser.follow(authorizationUrl, callbackUrl);
  for (const prompt of ["login", "consent"]) {
    if (response.headers.get("location")?.startsWith(callbackUrl)) return response;
    const interaction = response.url;
    if (!/\/interaction\//.test(interaction)) throw new Error(`expected an interaction page, got ${response.status} ${interaction}`);
    const submitted = await browser.request(interaction, {
      method: "POST",
      headers: { "content-type": "application/x-www-form-urlencoded" },
      body: new URLSearchParams(prompt === "login" ? { prompt, login: accountId, password: "any" } : { prompt }),
    });
    response = await browser.follow(new URL(submitted.headers.get("location")!, interaction).href, callbackUrl);
  }
  return response;
}
