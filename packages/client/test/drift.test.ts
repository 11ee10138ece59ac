/** CI's guard that the checked-in client types are those of the API as it is. */
import { readFileSync } from "node:fs";
import { describe, expect, it } from "vitest";
import { generateSchemaSource, SCHEMA_FILE } from "../scripts/schema-source";

/** "line N: expected … / found …" for the first line that differs, or undefined when none does. */
function firstDifference(expected: string, actual: string): string | undefined {
  const want = expected.split("\n");
  const have = actual.split("\n");
  for (let line = 0; line < Math.max(want.length, have.length); line += 1) {
    if (want[line] !== have[line]) return `line ${line + 1}: expected ${JSON.stringify(want[line])}, found ${JSON.stringify(have[line])}`;
  }
  return undefined;
}

describe("the generated client types", () => {
  it("when the API's OpenAPI document is generated now, then src/schema.ts is exactly what openapi-typescript makes of it", async () => {
    const difference = firstDifference(await generateSchemaSource(), readFileSync(SCHEMA_FILE, "utf8"));

    expect(difference, "src/schema.ts has drifted from the API: run `pnpm --filter @hub/client generate` and commit it").toBeUndefined();
  });
});
