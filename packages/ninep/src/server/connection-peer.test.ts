import { describe, expect, it } from "vitest";
import { addressKey } from "./connection-peer.js";

describe("addressKey", () => {
  it("keeps an IPv4 address as it is, also when it comes IPv4-mapped", () => {
    expect(addressKey("192.0.2.7")).toBe("192.0.2.7");
    expect(addressKey("::ffff:192.0.2.7")).toBe("192.0.2.7");
    expect(addressKey("::FFFF:127.0.0.1")).toBe("127.0.0.1");
  });

  it("counts an IPv6 address by its /64, however it is spelt", () => {
    const key = "2001:db8:0:1::/64";
    for (const address of [
      "2001:db8:0:1::1",
      "2001:0db8:0000:0001:ffff:ffff:ffff:ffff",
      "2001:DB8::1:0:0:0:5",
      "2001:db8:0:1:0:0:192.0.2.1",
      "2001:db8:0:1::7%eth0",
    ])
      expect(addressKey(address), address).toBe(key);
    expect(addressKey("2001:db8:0:2::1")).toBe("2001:db8:0:2::/64");
    expect(addressKey("::1")).toBe("0:0:0:0::/64");
    expect(addressKey("fe80::1%lo")).toBe("fe80:0:0:0::/64");
  });
});
