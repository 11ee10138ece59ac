/** The break-glass `reset-password` command (CONTRACT §6.11), against the real database and API. */
import { spawnSync } from "node:child_process";
import { randomBytes } from "node:crypto";
import { Readable } from "node:stream";
import { and, eq } from "drizzle-orm";
import { describe, expect, it } from "vitest";
import { schema } from "@hub/db";
import { nodeEntryPoint, REPO_ROOT, waitUntil } from "@hub/testing";
import { runResetPassword } from "../src/identity/reset-password";
import { useTestHub } from "./harness";

const hub = useTestHub({ HUB_PASSWORD_MIN_LENGTH: "12" });

/** Runs the command in-process with this standard input; what it wrote and its exit code. */
async function resetPassword(argv: string[], input = "", env: Record<string, string> = {}, options: { terminal?: boolean } = {}) {
  let stdout = "";
  let stderr = "";
  const stdin = Object.assign(Readable.from([input]), { isTTY: options.terminal === true });
  const code = await runResetPassword({
    argv,
    env: { DATABASE_URL: hub.database.url, HUB_PASSWORD_MIN_LENGTH: "12", ...env },
    stdin,
    stdout: { write: (chunk: string) => ((stdout += chunk), true) },
    stderr: { write: (chunk: string) => ((stderr += chunk), true) },
  });
  return { code, stdout, stderr };
}

const resets = async (userId: string) =>
  hub.api.ctx.database.db
    .select()
    .from(schema.events)
    .where(and(eq(schema.events.aggregateId, userId), eq(schema.events.eventType, "user.password_reset")));

describe("reset-password", () => {
  it("when a password is given on standard input, then exit 0, nothing on stdout, the user signs in with it, its old token is refused, and the event has no actor", async () => {
    const user = await hub.createUser("employee");
    const password = `stdin-${randomBytes(9).toString("base64url")}`;

    const result = await resetPassword(["--email", user.email.toUpperCase()], `${password}\nignored second line\n`);

    expect(result).toMatchObject({ code: 0, stdout: "" });
    expect(result.stderr).not.toContain(password);
    expect((await hub.client.post("/identity/token", { email: user.email, password })).status).toBe(200);
    await waitUntil("the API refuses the old token", async () => (await hub.client.get("/identity/me", { token: user.token })).status === 401, 2_000, 20);
    expect(await resets(user.id)).toMatchObject([{ actorId: null, payload: { user_id: user.id } }]);
  });

  it("when the password is typed on a terminal, then a prompt goes to stderr and what is typed is not echoed", async () => {
    const user = await hub.createUser("employee");
    const password = `typed-${randomBytes(9).toString("base64url")}`;

    const result = await resetPassword(["--email", user.email], `${password}\r`, {}, { terminal: true });

    expect(result.code).toBe(0);
    expect(result.stderr).toContain("New password (not shown): ");
    expect(result.stderr).not.toContain(password);
    expect(result.stdout).toBe("");
    expect((await hub.client.post("/identity/token", { email: user.email, password })).status).toBe(200);
  });

  it("when --generate is given, then stdout is only the new 24-character password, and it signs in", async () => {
    const user = await hub.createUser("admin");

    const result = await resetPassword([`--email=${user.email}`, "--generate"]);

    expect(result.code).toBe(0);
    expect(result.stdout).toMatch(/^[A-Za-z0-9_-]{24}\n$/);
    expect((await hub.client.post("/identity/token", { email: user.email, password: result.stdout.trim() })).status).toBe(200);
  });

  it("when the user is deactivated, then the password is reset, the user stays deactivated, and stderr says how to reactivate it", async () => {
    const user = await hub.createUser("employee");
    expect((await hub.client.delete(`/identity/users/${user.id}`, { token: hub.adminToken })).status).toBe(204);

    const result = await resetPassword(["--email", user.email], "a long enough password\n");

    expect(result.code).toBe(0);
    expect(result.stderr).toContain(`POST /identity/users/${user.id}/reactivate`);
    const [row] = await hub.api.ctx.database.db.select({ isActive: schema.users.isActive }).from(schema.users).where(eq(schema.users.id, user.id));
    expect(row?.isActive).toBe(false);
  });

  it("when the e-mail's logins are throttled, then the reset clears its counts and the new password signs in at once", async () => {
    const user = await hub.createUser("employee");
    const logIn = (password: string) => hub.client.post("/identity/token", { email: user.email, password });
    for (let i = 0; i < 10; i++) expect((await logIn("wrong")).status).toBe(401);
    expect((await logIn(user.password)).status).toBe(429);

    const result = await resetPassword(["--email", user.email, "--generate"]);

    expect(result.code).toBe(0);
    expect((await logIn(result.stdout.trim())).status).toBe(200);
  });

  it("when the e-mail is unknown, then exit 1 and nothing is written", async () => {
    const before = (await hub.api.ctx.database.db.select({ id: schema.events.id }).from(schema.events)).length;

    const result = await resetPassword(["--email", "nobody@hub.test"], "a long enough password\n");

    expect(result.code).toBe(1);
    expect((await hub.api.ctx.database.db.select({ id: schema.events.id }).from(schema.events)).length).toBe(before);
  });

  it("when the usage is wrong, the password empty or against the rules, then exit 2 and the password is unchanged", async () => {
    const user = await hub.createUser("employee");

    const outcomes = [
      await resetPassword([], "a long enough password\n"),
      await resetPassword(["--email", user.email, "--force"], "a long enough password\n"),
      await resetPassword(["--email", user.email], ""),
      await resetPassword(["--email", user.email], "\n"),
      await resetPassword(["--email", user.email], "elevenchars\n"),
      await resetPassword(["--email", user.email], `${"€".repeat(25)}\n`),
    ];

    expect(outcomes.map((outcome) => outcome.code)).toEqual([2, 2, 2, 2, 2, 2]);
    expect(outcomes[4]!.stderr).toContain("String should have at least 12 characters");
    expect(outcomes[5]!.stderr).toContain("String should have at most 72 bytes in UTF-8");
    expect((await hub.client.post("/identity/token", { email: user.email, password: user.password })).status).toBe(200);
    expect(await resets(user.id)).toEqual([]);
  });

  it("when the database is unreachable, then exit 3", async () => {
    const result = await resetPassword(["--email", "admin@hub.test", "--generate"], "", { DATABASE_URL: "postgres://postgres@127.0.0.1:1/none" });

    expect(result.code).toBe(3);
    expect(result.stdout).toBe("");
    expect(result.stderr).toContain("unreachable");
  });

  it("when the real command runs with --generate, then it exits 0 and its standard output is the password alone", async () => {
    const user = await hub.createUser("employee");
    const { command, args } = nodeEntryPoint("apps/api/src/identity/reset-password-cli.ts");
    const run = spawnSync(command, [...args, "--email", user.email, "--generate"], {
      cwd: REPO_ROOT,
      env: { PATH: process.env.PATH, DATABASE_URL: hub.database.url, HUB_PASSWORD_MIN_LENGTH: "12" },
      encoding: "utf8",
      timeout: 60_000,
    });

    expect(run.status).toBe(0);
    expect(run.stdout).toMatch(/^[A-Za-z0-9_-]{24}\n$/);
    expect((await hub.client.post("/identity/token", { email: user.email, password: run.stdout.trim() })).status).toBe(200);
  });
});
