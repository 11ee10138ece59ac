/**
 * `@hub/api/testing`: what other workspaces' tests may use of the API's own test set-up — the
 * in-process hub (real PostgreSQL and Redis) and the job fixtures with a dispatcher — so they
 * import it by name and declare `@hub/api` instead of reaching into this directory by path.
 */
export * from "./harness";
export * from "./job-fixtures";
