/**
 * `'a','b'`: a list of the hub's own constants (job statuses…) as SQL string literals, for
 * statements and constraints that list them. Constants only: a value from a request goes in as a
 * parameter, never through here.
 */
export function sqlLiteralList(constants: readonly string[]): string {
  return constants.map((constant) => `'${constant.replaceAll("'", "''")}'`).join(",");
}
