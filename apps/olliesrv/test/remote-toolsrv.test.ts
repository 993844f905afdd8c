import { randomBytes } from "node:crypto";
import { mkdirSync, mkdtempSync, readdirSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { createLogger } from "@ollie/log";
import { hmacAuthenticator } from "@ollie/ninep";
import { ToolsrvConn } from "@ollie/toolsrv/client";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { RemoteToolsrv } from "../src/remote/remote-toolsrv.js";
import { SshMaster } from "../src/remote/ssh-master.js";
import { SSHD, startSshd, type TestSshd } from "./sshd.js";

const root = mkdtempSync(join(tmpdir(), "ollie-remote-"));
const key = randomBytes(24).toString("hex");
const logLines: string[] = [];
const log = createLogger({
  program: "olliesrv",
  settings: { level: "info", categories: new Map() },
  stream: { write: (line: string) => logLines.push(line) } as unknown as NodeJS.WritableStream,
});
let sshd: TestSshd;
const masters: SshMaster[] = [];

beforeAll(async () => {
  if (SSHD) sshd = await startSshd();
  for (const d of ["work", "remote", "ctl", "run"]) mkdirSync(join(root, d));
});

afterAll(async () => {
  for (const master of masters) await master.stop();
  await sshd?.stop();
  rmSync(root, { recursive: true, force: true });
});

function remoteToolsrv(name: string, master: SshMaster) {
  return new RemoteToolsrv({
    master,
    localSocket: join(root, "run", `${name}.sock`),
    key,
    cacheDir: join(root, "cache"),
    dataDir: join(root, "remote"),
    log,
  });
}

const masterFor = (s: TestSshd) =>
  new SshMaster({ destination: s.destination, controlDir: join(root, "ctl"), sshOptions: s.sshOptions });

describe.skipIf(!SSHD)("toolsrv over ssh", { timeout: 90_000 }, () => {
  it("sends toolsrv once, runs tools there through the forwarded socket, and proves the key", async () => {
    const master = masterFor(sshd);
    masters.push(master);
    const first = remoteToolsrv("first", master);
    const started = await first.start().catch((error: unknown) => {
      throw new Error(`${(error as Error).message}\n${logLines.join("")}`);
    });
    expect(started.sent).toBe(1);
    expect(readdirSync(join(root, "remote")).filter((n) => /^[0-9a-f]{32}$/.test(n))).toHaveLength(1);
    const conn = await ToolsrvConn.dial({
      address: first.address,
      uname: "agent1",
      cwd: join(root, "work"),
      authenticator: hmacAuthenticator(key),
    });
    await conn.load(["shell"]);
    const result = await conn.call(
      "shell",
      { command: "echo hello from $(pwd)" },
      new AbortController().signal,
    );
    expect(result.output).toContain(`hello from ${join(root, "work")}`);
    await conn.close();
    await expect(
      ToolsrvConn.dial({
        address: first.address,
        uname: "agent1",
        cwd: root,
        authenticator: hmacAuthenticator("x"),
      }),
    ).rejects.toThrow();

    // A second toolsrv on the same host finds the bundle there.
    const second = remoteToolsrv("second", master);
    expect((await second.start()).sent).toBe(0);
    await second.stop();
    await first.stop();
    await master.stop();
  });

  it("refuses a host whose key is not the one known, with ssh's reason", async () => {
    const other = await startSshd();
    try {
      other.forgeHostKey();
      await expect(remoteToolsrv("forged", masterFor(other)).start()).rejects.toThrow(
        /Host key verification failed|HOST IDENTIFICATION HAS CHANGED/,
      );
    } finally {
      await other.stop();
    }
  });
});
