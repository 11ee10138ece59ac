// `pnpm start`: builds the apps, then runs the API, the dispatcher and the event relay together in
// one terminal, as production runs them (`node --enable-source-maps apps/<app>/dist/main.js`).
//
//   node scripts/start.mjs [--no-build] [app ...]     (apps: api, dispatcher, event-relay; default all)
//
// Output: the apps log JSON lines that already name their app ("app":"api"), so those pass through
// untouched (`pnpm start | jq` and pino-pretty keep working); any other line is prefixed with the
// app's name. The launcher's own messages go to stderr, prefixed "start:".
//
// Lifecycle: SIGINT/SIGTERM are forwarded once to every app and the launcher exits when all have
// stopped (a second signal kills them). When an app exits with an error on its own, the others are
// stopped and the launcher exits with that app's code. An app that exits cleanly on its own leaves
// the others running.
import { spawn, spawnSync } from "node:child_process";
import { randomBytes } from "node:crypto";
import { chmodSync, readFileSync, writeFileSync } from "node:fs";
import path from "node:path";
import process from "node:process";
import readline from "node:readline";
import { setTimeout as sleep } from "node:timers/promises";
import { fileURLToPath } from "node:url";

const ROOT = path.resolve(path.dirname(fileURLToPath(import.meta.url)), "..");
const ALL_APPS = ["api", "dispatcher", "event-relay"];
const DEV_SECRET_FILE = ".hub-dev-secret";
const DEV_WEBHOOK_KEY_FILE = ".hub-dev-webhook-key";
// Documented in docs/configuration.md and README.md ("Quick start"); for a developer's machine only. The password is not a
// default anyone could know: it is generated on the first start and kept in this git-ignored file.
const DEV_ADMIN_EMAIL = "admin@hub.local";
const DEV_PASSWORD_MIN_LENGTH = "12";
const DEV_ADMIN_PASSWORD_FILE = ".hub-dev-admin-password";
// Where the kept files live: the repository root, unless HUB_DEV_SECRETS_DIR names another
// directory (the launcher's own setting, for a second checkout's hub or the launcher's test).
const SECRETS_DIR = process.env.HUB_DEV_SECRETS_DIR ? path.resolve(process.env.HUB_DEV_SECRETS_DIR) : ROOT;
// The apps bind every interface when HOST is unset; a developer's hub stays on this machine.
const DEFAULT_HOST = "127.0.0.1";
/** How long the launcher waits for the API's /healthz before it prints where to go anyway. */
const API_READY_TIMEOUT_MS = 120_000;

const say = (message) => process.stderr.write(`start: ${message}\n`);

function parseArgs(argv) {
  const build = !argv.includes("--no-build");
  const apps = argv.filter((arg) => arg !== "--no-build");
  const unknown = apps.filter((app) => !ALL_APPS.includes(app));
  if (unknown.length > 0) {
    say(`unknown app or option: ${unknown.join(", ")} (apps: ${ALL_APPS.join(", ")}; option: --no-build)`);
    process.exit(2);
  }
  return { build, apps: apps.length > 0 ? apps : ALL_APPS };
}

/**
 * A random value generated on the first start and kept (mode 600) in a git-ignored file, then read
 * back on every later start and never replaced: the JWT secret keeps tokens valid across restarts,
 * the webhook key keeps sealed secrets openable, and the first admin's password stays the one the
 * database holds (CONTRACT §6.11). Only a missing or empty file gets a new value.
 */
function keptSecret(fileName, bytes) {
  const file = path.join(SECRETS_DIR, fileName);
  let kept = "";
  try {
    kept = readFileSync(file, "utf8").trim();
  } catch (error) {
    if (error.code !== "ENOENT") throw error;
  }
  if (kept.length > 0) {
    chmodSync(file, 0o600);
    return kept;
  }
  const secret = randomBytes(bytes).toString("base64url");
  writeFileSync(file, `${secret}\n`, { mode: 0o600 });
  chmodSync(file, 0o600); // an existing empty file keeps its mode on write
  return secret;
}

/** The apps' environment: the caller's, plus development defaults for what the quick start needs. */
function appEnvironment() {
  const env = { ...process.env, TURBO_TELEMETRY_DISABLED: "1" };
  if (!env.HOST) env.HOST = DEFAULT_HOST;
  if (!env.HUB_JWT_SECRET) {
    env.HUB_JWT_SECRET = keptSecret(DEV_SECRET_FILE, 48);
    say(`HUB_JWT_SECRET is not set: using the development secret kept in ${DEV_SECRET_FILE}`);
  }
  if (!env.HUB_WEBHOOK_ENCRYPTION_KEY) {
    // 32 random bytes, base64url: the API seals webhook secrets with it and the relay opens them.
    env.HUB_WEBHOOK_ENCRYPTION_KEY = keptSecret(DEV_WEBHOOK_KEY_FILE, 32);
    say(`HUB_WEBHOOK_ENCRYPTION_KEY is not set: using the development key kept in ${DEV_WEBHOOK_KEY_FILE}`);
  }
  // As docker-compose.yml does: the API's own default (1) suits tests, not a hub people sign in to.
  if (!env.HUB_PASSWORD_MIN_LENGTH) env.HUB_PASSWORD_MIN_LENGTH = DEV_PASSWORD_MIN_LENGTH;
  if (!env.HUB_ADMIN_EMAIL) env.HUB_ADMIN_EMAIL = DEV_ADMIN_EMAIL;
  let passwordSource = "the password you set in HUB_ADMIN_PASSWORD";
  if (!env.HUB_ADMIN_PASSWORD) {
    env.HUB_ADMIN_PASSWORD = keptSecret(DEV_ADMIN_PASSWORD_FILE, 18);
    passwordSource = `the password kept in ${path.join(SECRETS_DIR, DEV_ADMIN_PASSWORD_FILE)}`;
    say(`HUB_ADMIN_PASSWORD is not set: the first admin ${env.HUB_ADMIN_EMAIL} gets the generated password kept in ${DEV_ADMIN_PASSWORD_FILE}`);
  }
  return { env, passwordSource };
}

/**
 * Once the API answers, the launcher's last line: where the console is, how to sign in, and how
 * to get back in when that password no longer works (the hub only ever creates the first admin;
 * it never changes a stored password).
 */
async function announceWhenReady(env, passwordSource) {
  const port = env.PORT ?? "8000";
  const host = env.HOST === "0.0.0.0" || env.HOST === "::" ? "127.0.0.1" : env.HOST;
  const base = `http://${host.includes(":") ? `[${host}]` : host}:${port}`;
  const deadline = Date.now() + API_READY_TIMEOUT_MS;
  while (Date.now() < deadline) {
    try {
      if ((await globalThis.fetch(`${base}/healthz`)).ok) break;
    } catch {
      // not listening yet
    }
    await sleep(250);
  }
  say(
    `console at ${base}/console: sign in as ${env.HUB_ADMIN_EMAIL} with ${passwordSource}; locked out? ` +
      `pnpm -s --filter @hub/api reset-password --email ${env.HUB_ADMIN_EMAIL} --generate`,
  );
}

function buildApps(apps, env) {
  const filters = apps.length === ALL_APPS.length ? ["--filter=./apps/*"] : apps.map((app) => `--filter=./apps/${app}`);
  say(`building ${apps.join(", ")}`);
  const result = spawnSync("pnpm", ["turbo", "run", "build", ...filters, "--output-logs=errors-only"], {
    cwd: ROOT,
    env,
    stdio: "inherit",
  });
  if (result.error) {
    say(`cannot run pnpm (${result.error.message}): run bash scripts/start.sh, which sets pnpm up`);
    process.exit(1);
  }
  if (result.status !== 0) {
    say("the build failed (see above)");
    process.exit(result.status ?? 1);
  }
}

function runApps(apps, env) {
  const width = Math.max(...apps.map((app) => app.length));
  /** @type {Map<string, import("node:child_process").ChildProcess>} */
  const running = new Map();
  let stopping = false;
  let exitCode = 0;

  const stopAll = (signal) => {
    for (const child of running.values()) child.kill(signal);
  };

  const relay = (name, stream, sink) => {
    const prefix = `${name.padEnd(width)} | `;
    readline.createInterface({ input: stream, crlfDelay: Infinity }).on("line", (line) => {
      sink.write(line.startsWith("{") ? `${line}\n` : `${prefix}${line}\n`);
    });
  };

  for (const name of apps) {
    const main = path.join(ROOT, "apps", name, "dist", "main.js");
    // Its own process group: a terminal's Ctrl-C reaches only the launcher, which forwards it once
    // (the apps treat a second signal as "exit now").
    const child = spawn(process.execPath, ["--enable-source-maps", main], {
      cwd: path.join(ROOT, "apps", name),
      env,
      stdio: ["ignore", "pipe", "pipe"],
      detached: true,
    });
    running.set(name, child);
    relay(name, child.stdout, process.stdout);
    relay(name, child.stderr, process.stderr);
    child.on("error", (error) => say(`${name} could not start: ${error.message}`));
    // "close" rather than "exit": the app's last lines have been relayed by then.
    child.on("close", (code, signal) => {
      running.delete(name);
      const how = signal ? `on ${signal}` : `with code ${code}`;
      const failed = code !== 0;
      if (!stopping && failed) {
        say(`${name} exited ${how}: stopping the others`);
        stopping = true;
        exitCode = code ?? 1;
        stopAll("SIGTERM");
      } else {
        say(`${name} exited ${how}`);
        if (failed && exitCode === 0) exitCode = code ?? 1;
      }
      if (running.size === 0) process.exit(exitCode);
    });
  }

  const onSignal = (signal) => {
    if (stopping) {
      say(`${signal} again: killing ${[...running.keys()].join(", ")}`);
      stopAll("SIGKILL");
      return;
    }
    stopping = true;
    say(`${signal}: stopping ${[...running.keys()].join(", ")}`);
    stopAll(signal);
  };
  process.on("SIGINT", onSignal);
  process.on("SIGTERM", onSignal);
  // Should the launcher itself die of an error, do not leave the apps running unattended.
  process.on("exit", () => stopAll("SIGTERM"));
}

const { build, apps } = parseArgs(process.argv.slice(2));
const { env, passwordSource } = appEnvironment();
if (build) buildApps(apps, env);
runApps(apps, env);
if (apps.includes("api")) void announceWhenReady(env, passwordSource);
