import { describe, expect, it } from "vitest";
import { scansOf } from "./claim-plan";

describe("scansOf", () => {
  it("when the claim's join reads jobs through a hash over a sequential scan, then that scan is found under the join", () => {
    const plan = {
      "Node Type": "Sort",
      Plans: [
        {
          "Node Type": "Hash Left Join",
          Plans: [{ "Node Type": "Function Scan" }, { "Node Type": "Hash", Plans: [{ "Node Type": "Seq Scan", "Relation Name": "jobs" }] }],
        },
      ],
    };

    expect(scansOf(plan, "jobs")).toEqual(["Seq Scan"]);
  });

  it("when jobs is read through its primary key, then the scan is named with its index and other tables are left out", () => {
    const plan = {
      "Node Type": "Nested Loop Left Join",
      Plans: [
        { "Node Type": "Seq Scan", "Relation Name": "events" },
        { "Node Type": "Index Scan", "Relation Name": "jobs", "Index Name": "jobs_pkey" },
      ],
    };

    expect(scansOf(plan, "jobs")).toEqual(["Index Scan jobs_pkey"]);
  });
});
