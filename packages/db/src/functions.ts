/**
 * The hub's PL/pgSQL and SQL functions: one hand-edited file each, `packages/db/functions/<name>.sql`,
 * holding one `CREATE OR REPLACE FUNCTION <name>(…)` statement and the comments that explain it.
 * Changing a rule (the claim, complete-and-claim, the key trigger) is a diff of that file; the
 * numbered migrations hold tables, indexes, triggers and data changes only.
 *
 * {@link applyFunctions} runs after the numbered migrations, under the same advisory lock, on every
 * start with migrate-on-start and in the migrate command, in one transaction:
 *
 * - every file is executed with `check_function_bodies` off, so that a file may call a function
 *   whose file sorts after it; then each function is checked by its language's validator, so a body
 *   that does not parse (or a SQL function naming a missing table) still fails the migrate;
 * - the definitions (`pg_get_functiondef`) before and after are compared: when none changed the
 *   transaction is rolled back, so a start that changes nothing writes nothing to the catalogue and
 *   running sessions keep their cached plans;
 * - a signature change is refused, whatever `CREATE OR REPLACE` would make of it. PostgreSQL itself
 *   refuses a new return type or a renamed parameter, and a new argument list would quietly add a
 *   second function beside the first. Builds still running during a rolling upgrade call the old
 *   signature, so a new signature is a new name (`hub_claim_jobs_v4` in a file of its own, as v2
 *   and v3 were). The old name's file becomes a SQL function that selects the old columns from the
 *   new one (`hub_claim_jobs_v3.sql`), so the rule keeps one definition; it is dropped by a numbered
 *   migration (breaking while builds that call it may run) when its file is deleted.
 */
import { readdirSync, readFileSync } from "node:fs";
import { createRequire } from "node:module";
import path from "node:path";
import type pg from "pg";

type Client = Pick<pg.ClientBase, "query">;

/** Folder of the function files, found through the package so bundled apps agree. */
export const functionsFolder = path.join(path.dirname(createRequire(import.meta.url).resolve("@hub/db/package.json")), "functions");

/** One function file of a build. */
export interface FunctionFile {
  /** The function's name, which is also the file's: `hub_claim_jobs_v4`. */
  name: string;
  /** The file's path, for messages. */
  file: string;
  sql: string;
}

const CREATE_LINE = /^CREATE OR REPLACE FUNCTION "?([a-z0-9_]+)"?\(/gm;

/** Thrown when a function file cannot be applied; the message names the file and says what to do. */
export class FunctionFileError extends Error {
  constructor(
    readonly file: string,
    message: string,
  ) {
    super(`${file}: ${message}`);
    this.name = "FunctionFileError";
  }
}

/**
 * Every function file in `folder`, by name. Each must hold exactly one `CREATE OR REPLACE FUNCTION`
 * of the function its file is named for: what the rest of this module relies on.
 */
export function readFunctionFiles(folder: string = functionsFolder): FunctionFile[] {
  return readdirSync(folder)
    .filter((entry) => entry.endsWith(".sql"))
    .sort()
    .map((entry) => {
      const file = path.join(folder, entry);
      const sql = readFileSync(file, "utf8");
      const name = entry.slice(0, -".sql".length);
      const created = [...sql.matchAll(CREATE_LINE)].map((match) => match[1]);
      if (created.length !== 1 || created[0] !== name) {
        throw new FunctionFileError(
          file,
          `a function file holds exactly one "CREATE OR REPLACE FUNCTION ${name}(" at the start of a line (found ${created.length === 0 ? "none" : created.join(", ")})`,
        );
      }
      return { name, file, sql };
    });
}

interface Definition {
  name: string;
  signature: string;
  definition: string;
}

async function readDefinitions(client: Client, names: string[]): Promise<Definition[]> {
  const { rows } = await client.query<Definition>(
    `select p.proname as name, p.oid::regprocedure::text as signature, pg_get_functiondef(p.oid) as definition
       from pg_proc p
      where p.pronamespace = current_schema()::regnamespace and p.proname = any($1::text[])
      order by p.proname, p.oid`,
    [names],
  );
  return rows;
}

/** What PostgreSQL raises when `CREATE OR REPLACE` would change a function's return type or parameters. */
const INVALID_FUNCTION_DEFINITION = "42P13";

const NEW_SIGNATURE_HINT =
  "a new signature is a new function: give it a new name in a file of its own (builds still running call the old one), and drop the old one in a numbered migration once no build calls it";

/**
 * Applies `files` in one transaction (see the module comment) and answers the names of the
 * functions whose definition changed, none when the database already had them all as written.
 * The caller holds the migration lock.
 */
export async function applyFunctions(client: Client, files: FunctionFile[]): Promise<string[]> {
  const names = files.map((f) => f.name);
  await client.query("begin");
  try {
    const before = await readDefinitions(client, names);
    await client.query("set local check_function_bodies = off");
    for (const file of files) {
      try {
        await client.query(file.sql);
      } catch (error) {
        const { code, message } = error as { code?: string; message?: string };
        throw new FunctionFileError(file.file, code === INVALID_FUNCTION_DEFINITION ? `${message}: ${NEW_SIGNATURE_HINT}` : String(message ?? error));
      }
    }
    await client.query("set local check_function_bodies = on");
    const after = await readDefinitions(client, names);
    for (const file of files) {
      const signatures = after.filter((d) => d.name === file.name).map((d) => d.signature);
      if (signatures.length > 1) {
        throw new FunctionFileError(file.file, `applying it left ${signatures.join(" beside ")}: ${NEW_SIGNATURE_HINT}`);
      }
    }
    const { rows: validations } = await client.query<{ name: string; validator: string; oid: number }>(
      `select p.proname as name, l.lanvalidator::regproc::text as validator, p.oid::int8 as oid
         from pg_proc p join pg_language l on l.oid = p.prolang
        where p.pronamespace = current_schema()::regnamespace and p.proname = any($1::text[]) and l.lanvalidator <> 0`,
      [names],
    );
    for (const { name, validator, oid } of validations) {
      try {
        // The validator's name comes from pg_language, not from a file.
        await client.query(`select ${validator}($1::oid)`, [oid]);
      } catch (error) {
        const file = files.find((f) => f.name === name)!;
        throw new FunctionFileError(file.file, (error as Error).message);
      }
    }
    const was = new Map(before.map((d) => [d.signature, d.definition]));
    const changed = [...new Set(after.filter((d) => was.get(d.signature) !== d.definition).map((d) => d.name))];
    await client.query(changed.length > 0 ? "commit" : "rollback");
    return changed;
  } catch (error) {
    await client.query("rollback").catch(() => undefined);
    throw error;
  }
}

/** The functions of `files` the database lacks (by name): what a build that only checks refuses to start without. */
export async function listMissingFunctions(client: Client, files: FunctionFile[]): Promise<string[]> {
  const names = files.map((f) => f.name);
  const { rows } = await client.query<{ name: string }>(
    `select f.name from unnest($1::text[]) as f(name)
      where not exists (select 1 from pg_proc p where p.pronamespace = current_schema()::regnamespace and p.proname = f.name)
      order by f.name`,
    [names],
  );
  return rows.map((r) => r.name);
}
