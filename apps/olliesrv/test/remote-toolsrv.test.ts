import { randomBytes } from "node:crypto";
import { mkdirSync, mkdtempSync, readdirSync, readFileSync, rmSync, statSync, symlinkSync } from "node:fs";
import { tmpdir, userInfo } from "node:os";
import { dirname, join } from "node:path";
import { createLogger } from "@ollie/log";
import { hmacAuthenticator } from "@ollie/ninep";
import { ToolsrvConn } from "@ollie/toolsrv/client";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { agentTmpDir } from "../src/remote/agent-tmp.js";
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
    // A fresh install's: no tools, no policies.
    configDir: join(root, "config"),
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
    // toolsrv, and the (empty) configuration.
    expect(started.sent).toBe(2);
    expect(readdirSync(join(root, "remote", "bundles")).filter((n) => /^[0-9a-f]{32}$/.test(n))).toHaveLength(
      2,
    );
    // The agent's own TMPDIR there, as olliesrv dials with it: private, and the only temporary directory granted.
    const tmp = await agentTmpDir(master, "agent1");
    expect(tmp).toBe(join(sshd.env.TMPDIR, `ollie-${userInfo().uid}`, "agent1"));
    expect(statSync(tmp).mode & 0o777).toBe(0o700);
    const conn = await ToolsrvConn.dial({
      address: first.address,
      uname: "agent1",
      cwd: join(root, "work"),
      env: { TMPDIR: tmp },
      authenticator: hmacAuthenticator(key),
    });
    await conn.load(["shell"]);
    const result = await conn.call(
      "shell",
      { command: 'echo hello from $(pwd); echo kept > "$TMPDIR/kept"' },
      new AbortController().signal,
    );
    expect(result.output).toContain(`hello from ${join(root, "work")}`);
    expect(readFileSync(join(tmp, "kept"), "utf8")).toBe("kept\n");
    await conn.close();
    await expect(
      ToolsrvConn.dial({
        address: first.address,
        uname: "agent1",
        cwd: root,
        authenticator: hmacAuthenticator("x"),
      }),
    ).rejects.toThrow();

    // A TMPDIR someone put there as a symlink (to a directory the tools should not have) is refused.
    const planted = join(dirname(tmp), "agent2");
    symlinkSync(join(root, "work"), planted);
    await expect(agentTmpDir(master, "agent2")).rejects.toThrow(
      `cannot make agent2's TMPDIR there: ${planted} is a symlink or not ${userInfo().username}'s own`,
    );

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
