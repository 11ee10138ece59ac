import { describe, expect, it } from "vitest";
import { throttledAddress } from "./client-address";

describe("throttledAddress", () => {
  it.each([
    ["192.0.2.1", "192.0.2.1"],
    ["::ffff:192.0.2.1", "192.0.2.1"],
    ["::ffff:c000:201", "192.0.2.1"],
    ["2001:db8:1:2:3:4:5:6", "2001:db8:1:2::/64"],
    ["2001:DB8:1:2::ffff", "2001:db8:1:2::/64"],
    ["2001:db8::1", "2001:db8:0:0::/64"],
    ["::1", "0:0:0:0::/64"],
  ])("when the client is %s, then it counts as %s", (address, counted) => {
    expect(throttledAddress(address)).toBe(counted);
  });

  it("when two addresses share a /64, then they count as one; another /64 counts apart", () => {
    expect(throttledAddress("2001:db8:a:b::1")).toBe(throttledAddress("2001:db8:a:b:ffff:ffff:ffff:ffff"));
    expect(throttledAddress("2001:db8:a:c::1")).not.toBe(throttledAddress("2001:db8:a:b::1"));
  });
});
