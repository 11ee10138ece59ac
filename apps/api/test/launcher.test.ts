/**
 * The development launcher (`scripts/start.mjs`, what `pnpm start` and `scripts/start.sh` run),
 * started for real, stopped and started again: what it generated on the first start (the JWT
 * secret, the first admin's password, the webhook key) must still be what the hub uses after a
 * restart (CONTRACT §6.11). The apps run from their production bundles, built once here.
 */
import { mkdtempSync, readFileSync, rmSync, statSync } from "node:fs";
import { createServer, type IncomingHttpHeaders, type Server } from "node:http";
import { tmpdir } from "node:os";
import path from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { webhookSignatureHeader } from "@hub/shared/webhooks";
import { buildHubApps, createScratchDatabase, freePort, ManagedProcess, REPO_ROOT, uniqueRedisPrefix, waitUntil, type ScratchDatabase } from "@hub/testing";
import { testServiceUrls } from "@hub/testing/vitest";

interface ReceivedDelivery {
  body: string;
  headers: IncomingHttpHeaders;
}

describe("the development launcher across a restart", { timeout: 600_000 }, () => {
  let database: ScratchDatabase;
  let secretsDir: string;
  let launcher: ManagedProcess;
  let apiUrl: string;
  let receiver: Server;
  const received: ReceivedDelivery[] = [];

  beforeAll(async () => {
    buildHubApps();
    const { databaseServerUrl, redisUrl } = testServiceUrls();
    database = await createScratchDatabase(databaseServerUrl, { label: "hub_launcher" });
    secretsDir = mkdtempSync(path.join(tmpdir(), "hub-launcher-"));
    const port = await freePort();
    apiUrl = `http://127.0.0.1:${port}`;
    launcher = new ManagedProcess({
      name: "launcher",
      command: process.execPath,
      args: ["scripts/start.mjs", "--no-build", "api", "event-relay"],
      env: {
        DATABASE_URL: database.url,
        REDIS_URL: redisUrl,
        HUB_REDIS_PREFIX: uniqueRedisPrefix(),
        PORT: String(port),
        HUB_RELAY_METRICS_PORT: String(await freePort()),
        HUB_DEV_SECRETS_DIR: secretsDir,
        HUB_WEBHOOKS_ALLOW_INSECURE: "true",
        HUB_WEBHOOKS_ALLOW_PRIVATE: "true",
        LOG_LEVEL: "warn",
      },
      cwd: REPO_ROOT,
      logFile: path.join(secretsDir, "launcher.log"),
      readiness: { kind: "log", pattern: /start: console at / },
      readyTimeoutMs: 180_000,
    });
    receiver = createServer((request, response) => {
      let body = "";
      request.setEncoding("utf8");
      request.on("data", (chunk: string) => (body += chunk));
      request.on("end", () => {
        received.push({ body, headers: request.headers });
        response.writeHead(204).end();
      });
    });
    await new Promise<void>((resolve) => receiver.listen(0, "127.0.0.1", resolve));
  });

  afterAll(async () => {
    await launcher?.stop();
    await new Promise((resolve) => receiver?.close(resolve));
    await database?.drop();
    if (secretsDir) rmSync(secretsDir, { recursive: true, force: true });
  });

  const keptFile = (name: string) => path.join(secretsDir, name);
  const kept = (name: string) => readFileSync(keptFile(name), "utf8").trim();

  async function signIn(password: string): Promise<Response> {
    return fetch(`${apiUrl}/identity/token`, {
      method: "POST",
      headers: { "content-type": "application/json" },
      body: JSON.stringify({ email: "admin@hub.local", password }),
    });
  }

  async function call(token: string, method: string, route: string, body?: unknown): Promise<Response> {
    return fetch(`${apiUrl}${route}`, {
      method,
      headers: { authorization: `Bearer ${token}`, ...(body === undefined ? {} : { "content-type": "application/json" }) },
      body: body === undefined ? undefined : JSON.stringify(body),
    });
  }

  it("when it is started, stopped and started again, then the kept password signs in both times, an earlier token still works, and a webhook secret sealed before the restart still signs deliveries", async () => {
    // Arrange: the first start, a token and a webhook created then.
    await launcher.start();
    const password = kept(".hub-dev-admin-password");
    const jwtSecret = kept(".hub-dev-secret");
    const webhookKey = kept(".hub-dev-webhook-key");
    for (const name of [".hub-dev-admin-password", ".hub-dev-secret", ".hub-dev-webhook-key"]) {
      expect(statSync(keptFile(name)).mode & 0o777, name).toBe(0o600);
    }
    const firstSignIn = await signIn(password);
    expect(firstSignIn.status).toBe(200);
    const { access_token: tokenBefore } = (await firstSignIn.json()) as { access_token: string };
    const webhookAddress = receiver.address();
    if (webhookAddress === null || typeof webhookAddress === "string") throw new Error("the receiver has no port");
    const created = await call(tokenBefore, "POST", "/webhooks", {
      url: `http://127.0.0.1:${webhookAddress.port}/hook`,
      event_types: ["sector.created"],
    });
    expect(created.status).toBe(201);
    const { secret } = (await created.json()) as { secret: string };
    // HUB_PASSWORD_MIN_LENGTH unset: the launcher sets 12, as docker-compose.yml does.
    const shortPassword = await call(tokenBefore, "POST", "/identity/users", { email: "short@example.com", password: "five5", role: "employee" });
    const longEnough = await call(tokenBefore, "POST", "/identity/users", { email: "long@example.com", password: "twelve-chars", role: "employee" });
    expect(shortPassword.status).toBe(422);
    expect(longEnough.status).toBe(201);

    // Act: a restart.
    await launcher.stop();
    await launcher.start();

    // Assert
    expect([kept(".hub-dev-admin-password"), kept(".hub-dev-secret"), kept(".hub-dev-webhook-key")]).toEqual([password, jwtSecret, webhookKey]);
    expect((await signIn(password)).status).toBe(200);
    const me = await call(tokenBefore, "GET", "/identity/me");
    expect(me.status).toBe(200);
    expect(await me.json()).toMatchObject({ email: "admin@hub.local", role: "admin" });
    expect((await call(tokenBefore, "POST", "/sectors", { name: "After the restart", color: "#336699" })).status).toBe(201);
    await waitUntil("the relay delivers sector.created to the webhook", () => received.length > 0, 60_000);
    const [delivery] = received;
    const message = {
      id: String(delivery!.headers["webhook-id"]),
      timestamp: Number(delivery!.headers["webhook-timestamp"]),
      body: delivery!.body,
    };
    expect(delivery!.headers["webhook-signature"]).toBe(webhookSignatureHeader([secret], message));

    // The last line says where to go, where the password is and how to get back in.
    const launcherLines = launcher
      .output()
      .trimEnd()
      .split("\n")
      .filter((line) => line.startsWith("start:"));
    const lastLine = launcherLines.at(-1) ?? "";
    expect(lastLine).toContain(`${apiUrl}/console`);
    expect(lastLine).toContain(keptFile(".hub-dev-admin-password"));
    expect(lastLine).toContain("reset-password");
  });
});
