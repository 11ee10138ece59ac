/**
 * The break-glass `reset-password` command (CONTRACT §6.11), for an operator locked out of the hub:
 *
 *   reset-password --email <e-mail> [--generate]
 *
 * Without `--generate` the new password is the first line of standard input (typed without echo
 * on a terminal); with it, 24 random characters are made and printed alone on standard output.
 * Every other message goes to standard error. It needs only the database (DATABASE_URL), applies
 * the password rules (HUB_PASSWORD_MIN_LENGTH), starts a new credential generation (every login
 * token of the user is refused) and writes `user.password_reset` with no actor; a deactivated
 * user stays deactivated.
 *
 * Exit codes: 0 done; 1 unknown e-mail; 2 usage or password-rule error; 3 database unreachable
 * (or not migrated to this build).
 */
import { randomBytes } from "node:crypto";
import { createInterface } from "node:readline";
import { Writable, type Readable } from "node:stream";
import { isDatabaseUnavailable, openDatabase } from "@hub/db";
import { EnvError } from "@hub/shared";
import { loadResetPasswordEnv } from "../env";
import { passwordProblems } from "./password-rules";
import { resetPasswordByEmail } from "./users.service";

export const RESET_PASSWORD_EXIT = { done: 0, unknownEmail: 1, usage: 2, database: 3 } as const;

const USAGE = "usage: reset-password --email <e-mail> [--generate]";
/** 18 random bytes, base64url: 24 characters, 144 bits. */
const GENERATED_PASSWORD_BYTES = 18;

export interface ResetPasswordIo {
  argv: string[];
  env: Record<string, string | undefined>;
  stdin: Readable & { isTTY?: boolean | undefined; setRawMode?: (mode: boolean) => unknown };
  stdout: Pick<NodeJS.WriteStream, "write">;
  stderr: Pick<NodeJS.WriteStream, "write">;
}

type Options = { email: string; generate: boolean };

function parseArguments(argv: string[]): Options | string {
  let email: string | undefined;
  let generate = false;
  for (let index = 0; index < argv.length; index += 1) {
    const argument = argv[index]!;
    if (argument === "--generate") generate = true;
    else if (argument === "--email") email = argv[(index += 1)];
    else if (argument.startsWith("--email=")) email = argument.slice("--email=".length);
    else return `unknown argument ${JSON.stringify(argument)}`;
  }
  if (email === undefined || email.trim() === "") return "--email is required";
  return { email: email.trim().toLowerCase(), generate };
}

/**
 * The first line of standard input. On a terminal the prompt goes to standard error and what is
 * typed is not echoed (readline writes it to an output that drops everything after the prompt).
 */
async function readFirstLine(io: ResetPasswordIo): Promise<string> {
  const onTerminal = io.stdin.isTTY === true;
  let muted = false;
  const output = new Writable({
    write(chunk: Buffer, _encoding, done) {
      if (!muted) io.stderr.write(chunk.toString());
      done();
    },
  });
  const lines = createInterface({ input: io.stdin, output: onTerminal ? output : undefined, terminal: onTerminal });
  try {
    if (onTerminal) {
      io.stderr.write("New password (not shown): ");
      muted = true;
    }
    for await (const line of lines) return line;
    return "";
  } finally {
    lines.close();
    if (onTerminal) io.stderr.write("\n");
  }
}

/** Runs the command; resolves to its exit code. */
export async function runResetPassword(io: ResetPasswordIo): Promise<number> {
  const say = (message: string) => io.stderr.write(`reset-password: ${message}\n`);
  const options = parseArguments(io.argv);
  if (typeof options === "string") {
    say(`${options}\n${USAGE}`);
    return RESET_PASSWORD_EXIT.usage;
  }
  let env;
  try {
    env = loadResetPasswordEnv(io.env);
  } catch (error) {
    if (!(error instanceof EnvError)) throw error;
    say(error.message);
    return RESET_PASSWORD_EXIT.usage;
  }

  const password = options.generate ? randomBytes(GENERATED_PASSWORD_BYTES).toString("base64url") : await readFirstLine(io);
  if (password === "") {
    say("the new password is empty (give it on the first line of standard input, or use --generate)");
    return RESET_PASSWORD_EXIT.usage;
  }
  const problems = passwordProblems(password, env.HUB_PASSWORD_MIN_LENGTH);
  if (problems.length > 0) {
    say(`the new password is refused: ${problems.map((problem) => problem.msg).join("; ")}`);
    return RESET_PASSWORD_EXIT.usage;
  }

  const database = openDatabase(env.DATABASE_URL, { max: 1, applicationName: "hub-reset-password" });
  try {
    const user = await resetPasswordByEmail(database.pool, options.email, password);
    if (!user) {
      say(`no user has the e-mail ${options.email}; nothing changed`);
      return RESET_PASSWORD_EXIT.unknownEmail;
    }
    if (options.generate) io.stdout.write(`${password}\n`);
    say(`the password of ${options.email} is reset; its earlier login tokens no longer work`);
    if (!user.isActive) say(`${options.email} is deactivated and stays so: reactivate it with POST /identity/users/${user.id}/reactivate`);
    return RESET_PASSWORD_EXIT.done;
  } catch (error) {
    // The password or its hash may be in a failed statement's parameters: say only what kind of failure.
    const reason = isDatabaseUnavailable(error) ? "the database is unreachable" : "the database refused the change (is it migrated to this build?)";
    say(`${reason}; nothing changed`);
    return RESET_PASSWORD_EXIT.database;
  } finally {
    await database.close();
  }
}
