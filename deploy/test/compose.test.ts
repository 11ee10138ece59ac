/**
 * The root docker-compose.yml, checked statically (there is no Docker engine here): against the
 * Compose Specification's JSON schema (vendored in deploy/schemas), and for what
 * `docker compose up --scale dispatcher=3 --scale event-relay=2` needs of the scaled services.
 */
import { existsSync, readFileSync } from "node:fs";
import path from "node:path";
import { Ajv } from "ajv";
import { describe, expect, it } from "vitest";
import { parse } from "yaml";
import { SHUTDOWN_TIMEOUT_MS } from "@hub/process";
import { DEPLOY_ROOT, REPO_ROOT } from "./kubernetes-objects";

// A compose file is free-form YAML; the schema vouches for its shape.
type ComposeFile = { services: Record<string, any> };

// Merge keys (`<<: *hub-common-env`) are resolved as Compose resolves them.
const compose = parse(readFileSync(path.join(REPO_ROOT, "docker-compose.yml"), "utf8"), { merge: true }) as ComposeFile;
const validateCompose = new Ajv({ allErrors: true, strict: false, validateSchema: false }).compile(
  JSON.parse(readFileSync(path.join(DEPLOY_ROOT, "schemas", "compose-spec.json"), "utf8")),
);
const schemaErrors = (file: unknown) =>
  validateCompose(file) ? [] : (validateCompose.errors ?? []).map((error) => `${error.instancePath} ${error.message} ${JSON.stringify(error.params)}`);

const APP_SERVICES = ["api", "dispatcher", "event-relay"];
const SCALED_SERVICES = ["dispatcher", "event-relay"];

/** Seconds in a Compose duration such as "20s", "1m30s". */
function durationSeconds(duration: string): number {
  const units: Record<string, number> = { h: 3600, m: 60, s: 1, ms: 0.001 };
  const parts = [...duration.matchAll(/(\d+(?:\.\d+)?)(ms|h|m|s)/g)];
  if (parts.map((part) => part[0]).join("") !== duration) throw new Error(`unexpected duration ${duration}`);
  return parts.reduce((sum, part) => sum + Number(part[1]) * units[part[2]!]!, 0);
}

describe("docker-compose.yml", () => {
  it("when validated against the Compose Specification's schema, then it has no problem", () => {
    expect(schemaErrors(compose)).toEqual([]);
  });

  it("when a service carries a key Compose does not know, then the same check refuses it (the check is not vacuous)", () => {
    const broken = structuredClone(compose);
    broken.services.dispatcher.container_nmae = "hub-dispatcher";

    expect(schemaErrors(broken).join("\n")).toContain("container_nmae");
  });

  it.each(SCALED_SERVICES)(
    "when %s is scaled (--scale dispatcher=3 --scale event-relay=2), then nothing in it must be unique: no container_name, hostname or host port",
    (name) => {
      const service = compose.services[name];

      expect(service).toBeDefined();
      expect(service.container_name).toBeUndefined();
      expect(service.hostname).toBeUndefined();
      // A published port (or any `ports` entry, which publishes on a random host port at best) would
      // collide or be meaningless across replicas; their metrics are scraped inside the network.
      expect(service.ports).toBeUndefined();
      expect(JSON.stringify(service.networks ?? {})).not.toMatch(/ipv[46]_address/);
    },
  );

  it("when the API is started as before, then it is still published on HUB_PORT (default 8000) and waits for healthy PostgreSQL and Redis", () => {
    const api = compose.services.api;

    expect(api.ports).toEqual(["${HUB_PORT:-8000}:8000"]);
    for (const name of APP_SERVICES) {
      expect(compose.services[name].depends_on, name).toEqual({ postgres: { condition: "service_healthy" }, redis: { condition: "service_healthy" } });
      expect(compose.services[name].build.args.APP, name).toBe(name);
    }
  });

  it.each(APP_SERVICES)("when %s is stopped, then compose's grace period outlasts the app's shutdown timeout", (name) => {
    expect(durationSeconds(compose.services[name].stop_grace_period)).toBeGreaterThan(SHUTDOWN_TIMEOUT_MS / 1000);
  });

  it("when the apps start, then they migrate at start-up (each under the advisory lock), so `docker compose up` needs no separate step", () => {
    for (const name of APP_SERVICES) {
      // Passed through from the shell when set; unset, the apps' default (true) applies.
      expect(Object.keys(compose.services[name].environment), name).toContain("HUB_MIGRATE_ON_START");
      expect(compose.services[name].environment.HUB_MIGRATE_ON_START, name).toBeNull();
    }
  });
});

/**
 * The configuration table (README.md's "Configuration", or docs/configuration.md once the table
 * lives there): each variable and the apps that read it ("all" = every app; rows for compose
 * itself, such as HUB_PORT, name no app). docker-compose.yml promises to pass every one of them to
 * those apps, so a value set on the host reaches them (HUB_RETENTION_DAYS=0 once did not).
 */
function configurationTable(): Map<string, string[]> {
  const ownFile = path.join(REPO_ROOT, "docs", "configuration.md");
  const text = existsSync(ownFile)
    ? readFileSync(ownFile, "utf8")
    : (readFileSync(path.join(REPO_ROOT, "README.md"), "utf8").split("\n## Configuration\n")[1] ?? "");
  const table = new Map<string, string[]>();
  for (const match of text.matchAll(/^\| `([A-Z][A-Z0-9_]*)` \| ([^|]+) \|/gm)) {
    const usedBy = match[2]!.trim();
    table.set(
      match[1]!,
      usedBy === "all"
        ? APP_SERVICES
        : usedBy
            .split(",")
            .map((app) => app.trim())
            .filter((app) => APP_SERVICES.includes(app)),
    );
  }
  return table;
}

describe("docker-compose.yml against the configuration table", () => {
  const table = configurationTable();

  it("when the table is read, then it lists the variables of every app (the parse is not vacuous)", () => {
    expect(table.size).toBeGreaterThan(30);
    expect(table.get("DATABASE_URL")).toEqual(APP_SERVICES);
    expect(table.get("HUB_RETENTION_DAYS")).toEqual(["dispatcher"]);
    expect(table.get("HUB_WEBHOOK_ENCRYPTION_KEY")).toEqual(["api", "event-relay"]);
  });

  it.each(APP_SERVICES)("when %s's environment is read, then it passes every variable the table says it reads, and none the table does not list", (name) => {
    const passed = Object.keys(compose.services[name].environment as Record<string, unknown>);
    const promised = [...table].filter(([, apps]) => apps.includes(name)).map(([variable]) => variable);

    expect(
      promised.filter((variable) => !passed.includes(variable)),
      "in the configuration table, not passed by compose",
    ).toEqual([]);
    expect(
      passed.filter((variable) => !table.has(variable)),
      "passed by compose, missing from the configuration table",
    ).toEqual([]);
  });

  it("when the password rules are read, then compose and the Kubernetes base require 12 characters", () => {
    expect(compose.services.api.environment.HUB_PASSWORD_MIN_LENGTH).toBe("${HUB_PASSWORD_MIN_LENGTH:-12}");
    const baseConfig = readFileSync(path.join(DEPLOY_ROOT, "kubernetes", "config.env"), "utf8");
    expect(baseConfig).toMatch(/^HUB_PASSWORD_MIN_LENGTH=12$/m);
  });

  it("when the Kubernetes base's configuration is read, then each of its variables is one of the configuration table", () => {
    const baseConfig = readFileSync(path.join(DEPLOY_ROOT, "kubernetes", "config.env"), "utf8");
    const variables = baseConfig
      .split("\n")
      .filter((line) => /^[A-Z]/.test(line))
      .map((line) => line.split("=")[0]!);

    expect(variables.filter((variable) => !table.has(variable))).toEqual([]);
  });
});
