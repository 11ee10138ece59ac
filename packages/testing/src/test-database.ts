import { prepareDatabase } from "@hub/db";
import { createScratchDatabase, type ScratchDatabase } from "@hub/test-services";

export type TestDatabase = ScratchDatabase;

/** A uniquely named database with every hub migration applied, on the server of `serverUrl`. */
export function createTestDatabase(serverUrl: string): Promise<TestDatabase> {
  return createScratchDatabase(serverUrl, { label: "hub_test", prepare: prepareDatabase });
}
