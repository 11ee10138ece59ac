import { randomUUID } from "node:crypto";
import { Webhook } from "standardwebhooks";
import { describe, expect, it } from "vitest";
import {
  checkWebhookUrl,
  generateWebhookSecret,
  parseWebhookEncryptionKey,
  refusedAddressClass,
  resolveWebhookTarget,
  webhookSignatureHeader,
  WebhookSecretBox,
  WebhookSecretDecryptionError,
} from "./index";

describe("webhook signatures", () => {
  it("when a payload is signed, then the independent standardwebhooks implementation verifies it, with either secret of a rotation", () => {
    const [current, previous] = [generateWebhookSecret(), generateWebhookSecret()];
    expect(current).toMatch(/^whsec_[A-Za-z0-9+/]{43}=$/);
    const message = { id: randomUUID(), timestamp: Math.floor(Date.now() / 1000), body: JSON.stringify({ a: "ü", b: [1] }) };
    const headers = {
      "webhook-id": message.id,
      "webhook-timestamp": String(message.timestamp),
      "webhook-signature": webhookSignatureHeader([current, previous], message),
    };

    expect(new Webhook(current).verify(message.body, headers)).toEqual({ a: "ü", b: [1] });
    expect(new Webhook(previous).verify(message.body, headers)).toEqual({ a: "ü", b: [1] });
    expect(() => new Webhook(generateWebhookSecret()).verify(message.body, headers)).toThrow();
    expect(() => new Webhook(current).verify(`${message.body} `, headers)).toThrow();
  });
});

describe("webhook secrets at rest", () => {
  const key = parseWebhookEncryptionKey(Buffer.alloc(32, 7).toString("base64"))!;

  it("when a secret is sealed, then only the same key and the same subscription open it", () => {
    const box = new WebhookSecretBox(key);
    const [id, other] = [randomUUID(), randomUUID()];
    const secret = generateWebhookSecret();

    const sealed = box.seal(id, secret);

    expect(sealed).not.toContain(secret.slice(6, 20));
    expect(box.open(id, sealed)).toBe(secret);
    expect(() => box.open(other, sealed)).toThrow(WebhookSecretDecryptionError);
    expect(() => new WebhookSecretBox(Buffer.alloc(32, 8)).open(id, sealed)).toThrow(/another HUB_WEBHOOK_ENCRYPTION_KEY/);
  });

  it("when the key is given as base64, base64url or hex, then it is read; anything else is refused", () => {
    expect(parseWebhookEncryptionKey(Buffer.alloc(32, 1).toString("hex"))).toEqual(Buffer.alloc(32, 1));
    expect(parseWebhookEncryptionKey(Buffer.alloc(32, 0xfb).toString("base64url"))).toEqual(Buffer.alloc(32, 0xfb));
    expect(parseWebhookEncryptionKey("too-short")).toBeUndefined();
    expect(parseWebhookEncryptionKey(Buffer.alloc(16).toString("base64"))).toBeUndefined();
  });
});

describe("webhook targets (SSRF defence)", () => {
  it.each([
    ["127.0.0.1", "loopback"],
    ["127.255.0.9", "loopback"],
    ["::1", "loopback"],
    ["::ffff:127.0.0.1", "loopback"],
    ["::ffff:7f00:1", "loopback"],
    ["10.0.0.1", "private"],
    ["172.31.255.255", "private"],
    ["192.168.1.1", "private"],
    ["100.64.0.1", "private"],
    ["fd12:3456::1", "private"],
    ["64:ff9b::a00:1", "private"],
    ["2002:a00:1::", "private"],
    ["169.254.1.1", "link-local"],
    ["fe80::1%eth0", "link-local"],
    ["169.254.169.254", "metadata"],
    ["::ffff:169.254.169.254", "metadata"],
    ["fd00:ec2::254", "metadata"],
    ["0.0.0.0", "unspecified"],
    ["::", "unspecified"],
    ["224.0.0.1", "multicast"],
    ["255.255.255.255", "reserved"],
  ])("when the address is %s, then it is refused as %s", (address, kind) => {
    expect(refusedAddressClass(address, { allowPrivate: false })).toBe(kind);
  });

  it("when private addresses are allowed, then loopback and private pass but metadata and unspecified never do", () => {
    expect(refusedAddressClass("127.0.0.1", { allowPrivate: true })).toBeUndefined();
    expect(refusedAddressClass("10.0.0.1", { allowPrivate: true })).toBeUndefined();
    expect(refusedAddressClass("169.254.169.254", { allowPrivate: true })).toBe("metadata");
    expect(refusedAddressClass("0.0.0.0", { allowPrivate: true })).toBe("unspecified");
  });

  it.each([
    // IPv4 embedded in IPv6 (CONTRACT §6.15): judged by the address they carry.
    ["::127.0.0.1", "loopback"],
    ["::a00:1", "private"],
    ["64:ff9b:1::a00:1", "private"],
    ["64:ff9b:1::a9fe:a9fe", "metadata"],
    ["2001:0:4136:e378:8000:63bf:f5ff:fffe", "private"], // Teredo: client 10.0.0.1, stored inverted
    ["2001:0:a00:1::1", "private"], // Teredo whose server is private
    // Site-local (deprecated), other special-purpose blocks, Azure's metadata address.
    ["fec0::1", "reserved"],
    ["feff:ffff::1", "reserved"],
    ["100::1", "reserved"],
    ["2001:2::1", "reserved"],
    ["2001:10::1", "reserved"],
    ["2001:20::1", "reserved"],
    ["3fff::1", "reserved"],
    ["192.88.99.1", "reserved"],
    ["100.127.255.255", "private"],
    ["168.63.129.16", "metadata"],
    ["::ffff:168.63.129.16", "metadata"],
  ])("when the address is %s, then it is refused as %s (second review)", (address, kind) => {
    expect(refusedAddressClass(address, { allowPrivate: false })).toBe(kind);
  });

  it("when private addresses are allowed, then CGNAT, ULA and link-local pass but no cloud metadata address does, in any form", () => {
    for (const address of ["100.64.0.1", "fd12::1", "fe80::1", "::1"]) expect(refusedAddressClass(address, { allowPrivate: true })).toBeUndefined();
    for (const address of ["168.63.129.16", "fd00:ec2::254", "::ffff:a9fe:a9fe", "64:ff9b::169.254.169.254", "2002:a9fe:a9fe::1"]) {
      expect(refusedAddressClass(address, { allowPrivate: true })).toBe("metadata");
    }
  });

  it("when the address is public, then it is allowed", () => {
    for (const address of ["93.184.216.34", "172.32.0.1", "8.8.8.8", "2606:4700::1111", "2a00:1450:4001:82a::200e", "2001:4860:4860::8888", "3ffe::1"]) {
      expect(refusedAddressClass(address, { allowPrivate: false })).toBeUndefined();
    }
  });

  it.each([
    // CONTRACT §6.21: IPv6 is global only inside 2000::/3 and outside the special-purpose registry.
    ["::ffff:0:169.254.169.254", "metadata"], // IPv4-translated (RFC 2765) form of the metadata address
    ["::ffff:0:127.0.0.1", "loopback"],
    ["::1:7f00:1", "reserved"],
    ["4000::1", "reserved"],
    ["100:0:0:1::1", "reserved"], // dummy prefix
    ["100::1", "reserved"],
    ["ff0e::1", "multicast"],
    ["2001:2::1", "reserved"],
    ["2001:1::1", "reserved"], // PCP anycast, "globally reachable" in the registry, still refused
    ["2001:4:112::1", "reserved"], // AS112-v6
    ["2001:3::1", "reserved"], // AMT
    ["2001:30::1", "reserved"], // drone remote ID
    ["2001:1ff::1", "reserved"], // IETF protocol assignments, 2001::/23
    ["2620:4f:8000::1", "reserved"], // AS112 direct delegation
    ["5f00::1", "reserved"],
    ["::ffff:8.8.8.8", "reserved"], // carries a public IPv4 address, still a form that embeds one
    ["64:ff9b::808:808", "reserved"],
    ["2002:808:808::1", "reserved"],
    ["2001:0:808:808::1", "reserved"], // Teredo
    ["fe80::5efe:a9fe:a9fe", "metadata"], // ISATAP carrying the metadata address
  ])("when the address is %s, then it is refused as %s (second day)", (address, kind) => {
    expect(refusedAddressClass(address, { allowPrivate: false })).toBe(kind);
  });

  it("when private addresses are allowed, then of IPv6 only ::1, fc00::/7 and fe80::/10 pass, never a form that carries IPv4", () => {
    for (const address of ["::1", "fc00::1", "fdff:ffff::1", "fe80::1", "febf::1"])
      expect(refusedAddressClass(address, { allowPrivate: true }), address).toBeUndefined();
    for (const address of [
      "::ffff:127.0.0.1",
      "::127.0.0.1",
      "::ffff:0:127.0.0.1",
      "64:ff9b::a00:1",
      "2002:a00:1::1",
      "::ffff:10.0.0.1",
      "fe80::5efe:a00:1",
      "fec0::1",
      "100::1",
      "4000::1",
      "::1:7f00:1",
    ]) {
      expect(refusedAddressClass(address, { allowPrivate: true }), address).toBeDefined();
    }
  });

  it("when a URL is http, has credentials or is not absolute, then it is refused; https is accepted", () => {
    expect(checkWebhookUrl("https://hooks.example.com/x?y=1", { allowInsecure: false }).ok).toBe(true);
    // The refusal names the two settings that allow a local webhook (CONTRACT §6.21, second day).
    expect(checkWebhookUrl("http://hooks.example.com/", { allowInsecure: false })).toEqual({
      ok: false,
      reason: expect.stringMatching(/^the URL must be https:\/\/ \(.*HUB_WEBHOOKS_ALLOW_INSECURE=true.*HUB_WEBHOOKS_ALLOW_PRIVATE=true.*\)$/),
    });
    expect(checkWebhookUrl("http://hooks.example.com/", { allowInsecure: true }).ok).toBe(true);
    expect(checkWebhookUrl("ftp://hooks.example.com/", { allowInsecure: true }).ok).toBe(false);
    expect(checkWebhookUrl("https://user:pw@hooks.example.com/", { allowInsecure: false }).ok).toBe(false);
    expect(checkWebhookUrl("/relative", { allowInsecure: false }).ok).toBe(false);
  });

  it("when a name resolves to a private address among public ones, or an IP literal is private in any spelling, then it is refused", async () => {
    const resolver = async () => [
      { address: "93.184.216.34", family: 4 as const },
      { address: "10.1.2.3", family: 4 as const },
    ];
    const byName = await resolveWebhookTarget(new URL("https://hooks.example.com/"), { allowPrivate: false }, resolver);
    expect(byName).toEqual({ ok: false, reason: expect.stringContaining("resolves to 10.1.2.3, a private address") });
    for (const literal of ["https://127.1/", "https://2130706433/", "https://[::ffff:127.0.0.1]/", "https://0x7f.0.0.1/"]) {
      const result = await resolveWebhookTarget(new URL(literal), { allowPrivate: false }, resolver);
      expect(result.ok, literal).toBe(false);
    }
    const publicOnly = await resolveWebhookTarget(new URL("https://hooks.example.com/"), { allowPrivate: false }, async () => [
      { address: "93.184.216.34", family: 4 },
    ]);
    expect(publicOnly).toEqual({ ok: true, value: { address: "93.184.216.34", family: 4 } });
  });

  it("when a name does not resolve, then it is refused", async () => {
    const result = await resolveWebhookTarget(new URL("https://nowhere.invalid/"), { allowPrivate: false }, async () => {
      throw new Error("ENOTFOUND");
    });
    expect(result).toEqual({ ok: false, reason: "the host nowhere.invalid does not resolve" });
  });
});
