import { randomBytes } from "node:crypto";
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { createLogger } from "@ollie/log";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { RemoteHosts } from "../src/remote/remote-hosts.js";
import { SSHD, startSshd, type TestSshd } from "./sshd.js";

const root = mkdtempSync(join(tmpdir(), "ollie-remote-hosts-"));
let forged: TestSshd;

beforeAll(async () => {
  if (!SSHD) return;
  forged = await startSshd();
  forged.forgeHostKey();
});

afterAll(async () => {
  await forged?.stop();
  rmSync(root, { recursive: true, force: true });
});

describe.skipIf(!SSHD)("reconnecting to a host", () => {
  it("waits longer after each failed start before it tries again, and says why until then", async () => {
    let clock = 1_000_000;
    const hosts = new RemoteHosts({
      runtimeDir: join(root, "run"),
      cacheDir: join(root, "cache"),
      configDir: join(root, "config"),
      key: randomBytes(16).toString("hex"),
      settings: async () => ({ sshOptions: forged.sshOptions }),
      log: createLogger({ program: "test", settings: { level: "silent", categories: new Map() } }),
      now: () => clock,
    });
    const refusedKey = /Host key verification failed|HOST IDENTIFICATION HAS CHANGED/;
    await expect(hosts.address(forged.destination)).rejects.toThrow(refusedKey);
    await expect(hosts.address(forged.destination)).rejects.toThrow(
      /not connecting again for 2 s: the last attempt failed: .*(Host key verification failed|HOST IDENTIFICATION)/,
    );
    clock += 2000;
    await expect(hosts.address(forged.destination)).rejects.toThrow(refusedKey);
    clock += 2000;
    await expect(hosts.address(forged.destination)).rejects.toThrow("not connecting again for 2 s");
    clock += 2000;
    await expect(hosts.address(forged.destination)).rejects.toThrow(refusedKey);
    expect(hosts.state(forged.destination)).toMatchObject({
      state: "disconnected",
      lost: expect.stringMatching(refusedKey),
    });
    await hosts.close();
  });
});
