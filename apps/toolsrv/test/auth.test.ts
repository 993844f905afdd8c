import { randomBytes } from "node:crypto";
import { mkdirSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { hmacAuthenticator } from "@ollie/ninep";
import { ToolsrvConn } from "@ollie/toolsrv/client";
import { execa } from "execa";
import { afterAll, beforeAll, describe, expect, it, vi } from "vitest";
import { BIN, type Daemon, homes, scratch, shTool, startDaemon, WAIT } from "./daemon.js";

const s = scratch("toolsrv-auth-");
const serviceKey = randomBytes(24).toString("hex");
const ownerKey = randomBytes(24).toString("hex");
const keysDir = join(s.root, "keys");
const ownerKeyFile = join(keysDir, "owner.key");
const secretDir = join(s.root, "secret");
const token = join(secretDir, "api.token");
// The default policy grants {TMPDIR}; left unset it is /tmp, which holds this whole scratch area.
const env = { TMPDIR: join(s.root, "tmp") };
let daemon: Daemon;

beforeAll(async () => {
  for (const d of [keysDir, secretDir, env.TMPDIR]) mkdirSync(d);
  writeFileSync(ownerKeyFile, `  ${ownerKey}\n`);
  writeFileSync(token, "a token\n");
  // toolsrv's environ held the key when it started; the tool is told toolsrv's pid and tries to read it.
  s.tool("print_env", shTool("print_env", "", "env; tr '\\0' '\\n' < /proc/$OLLIE_ARG_PID/environ"));
  daemon = await startDaemon(
    s,
    [
      ...["--owner-key", ownerKeyFile, "--protect", token, "--protect-writes", s.tools],
      ...["--default-tools", "print_env"],
      // Where it serves is a debug line when it prints its address and has a key.
      ...["--log-level", "debug,tools=info"],
    ],
    { OLLIE_TOOLSRV_KEY: serviceKey },
  );
});

afterAll(async () => {
  await daemon?.stop();
  s.remove();
});

/** The audit lines toolsrv has written about `uname`, once they are there and a moment has passed. */
async function auditLinesAbout(uname: string): Promise<string[]> {
  const lines = () =>
    daemon
      .stderr()
      .split("\n")
      .filter((l) => l.includes(" WARN  toolsrv[audit]: ") && l.includes(`"${uname}"`));
  await vi.waitFor(() => expect(lines()).not.toEqual([]), WAIT);
  // A window for a negative assertion: long enough for a second line about the same refusal to show, if there
  // were one.
  await new Promise((r) => setTimeout(r, 100));
  return lines();
}

const callIn = async (cwd: string) => {
  const conn = await daemon.conn("agent1", { authenticator: hmacAuthenticator(serviceKey), cwd, env });
  try {
    return await conn.callRaw(
      { tool: "print_env", args: { pid: daemon.child.pid } },
      new AbortController().signal,
    );
  } finally {
    await conn.close();
  }
};

describe("toolsrv with OLLIE_TOOLSRV_KEY", () => {
  it("says it serves authenticated", () => {
    expect(daemon.stderr()).toMatch(/DEBUG toolsrv: serving .*; every attach must prove its key/);
  });

  it("refuses an attach without a proof, and audits it once", async () => {
    await expect(daemon.attach("mallory")).rejects.toThrow("authentication required");
    const lines = await auditLinesAbout("mallory");
    expect(lines).toHaveLength(1);
    expect(lines[0]).toMatch(
      /^\S+Z WARN {2}toolsrv\[audit\]: refused attach as "mallory"( from \S+)?: authentication required$/,
    );
  });

  it("refuses an attach with a wrong key, and audits it once", async () => {
    await expect(daemon.attach("eve", hmacAuthenticator("not the key"))).rejects.toThrow(
      "authentication failed",
    );
    const lines = await auditLinesAbout("eve");
    expect(lines).toHaveLength(1);
    expect(lines[0]).toMatch(
      /^\S+Z WARN {2}toolsrv\[audit\]: refused attach as "eve"( from \S+)?: authentication failed$/,
    );
  });

  it("serves an agent that proves the service key, and never gives a tool the key", async () => {
    const r = await callIn(s.work);
    expect(r.output).toContain("OLLIE_UNAME=agent1\n");
    expect(r.output).not.toContain(serviceKey);
    expect(r.output).not.toContain("OLLIE_TOOLSRV_KEY");
    // Nor can it read toolsrv's own environment: the sandbox's /proc shows its own processes only.
    expect(r.stderr).toMatch(
      new RegExp(`/proc/${daemon.child.pid}/environ: (No such file|Permission denied)`),
    );
  });

  it("makes the owner prove the key in --owner-key, and nobody else", async () => {
    await expect(daemon.attach("glenda", hmacAuthenticator(serviceKey))).rejects.toThrow(
      "authentication failed",
    );
    expect(await auditLinesAbout("glenda")).toHaveLength(1);
    await expect(daemon.attach("agent2", hmacAuthenticator(ownerKey))).rejects.toThrow(
      "authentication failed",
    );
    const owner = await daemon.attach("glenda", hmacAuthenticator(ownerKey));
    expect(JSON.parse((await owner.fsys.readFile("tools")).toString())).toEqual(
      expect.arrayContaining([expect.objectContaining({ name: "print_env" })]),
    );
    owner.close();
  });

  it("refuses a call whose working directory holds a --protect path or the owner's key file", async () => {
    const refused = await callIn(secretDir);
    expect(refused.isError).toBe(true);
    expect(refused.output).toContain(`print_env could not start: filesystem.rw grants '${secretDir}'`);
    expect(refused.output).toContain(`which holds the protected path '${token}'`);
    expect((await callIn(keysDir)).output).toContain(`which holds the protected path '${ownerKeyFile}'`);
    expect((await callIn(s.work)).output).toContain(`PWD=${s.work}\n`);
  });

  it("refuses a call that could write a --protect-writes path, while the tools in it still run", async () => {
    expect((await callIn(s.tools)).output).toBe(
      `print_env could not start: filesystem.rw grants '${s.tools}', which is the protected path '${s.tools}'`,
    );
    // print_env itself lives there, read and run.
    expect((await callIn(s.work)).output).toContain(`OLLIE_TOOL=print_env\n`);
  });
});

describe("toolsrv's keys at start", () => {
  const start = (args: string[], extra: Record<string, string> = {}) =>
    execa(process.execPath, [BIN, "-a", `unix!${join(s.root, "never.sock")}`, ...args], {
      env: { ...homes(s), PATH: process.env.PATH, ...extra },
      extendEnv: false,
      reject: false,
    });

  it("refuses --owner-key without OLLIE_TOOLSRV_KEY, rather than serve unauthenticated", async () => {
    const r = await start(["--owner-key", ownerKeyFile]);
    expect(r.exitCode).toBe(2);
    expect(r.stderr).toContain("--owner-key needs OLLIE_TOOLSRV_KEY or --key-stdin");
  });

  it("refuses an empty key", async () => {
    const r = await start([], { OLLIE_TOOLSRV_KEY: "" });
    expect(r.exitCode).toBe(1);
    expect(r.stderr).toMatch(/^\S+Z ERROR toolsrv: OLLIE_TOOLSRV_KEY is set but empty/);
    const empty = join(keysDir, "empty.key");
    writeFileSync(empty, "\n");
    const file = await start(["--owner-key", empty], { OLLIE_TOOLSRV_KEY: serviceKey });
    expect(file.stderr).toContain(`--owner-key: ${empty} is empty`);
  });
});

describe("--key-stdin", () => {
  it("takes the key from standard input's first line, never from the environment, and stops when it closes", async () => {
    const address = `unix!${join(s.root, "stdin-keyed.sock")}`;
    const child = execa(process.execPath, [BIN, "-a", address, "--key-stdin", "--print-address"], {
      env: { ...homes(s), PATH: process.env.PATH },
      extendEnv: false,
      reject: false,
      stdin: "pipe",
    });
    child.stdin!.write(`${serviceKey}\n`);
    await new Promise<void>((resolve, reject) => {
      child.stdout!.once("data", () => resolve());
      void child.then((r) => reject(new Error(`toolsrv exited: ${r.stderr}`)));
    });
    const dial = (key: string) =>
      ToolsrvConn.dial({ address, uname: "agent1", cwd: s.work, authenticator: hmacAuthenticator(key) });
    await (await dial(serviceKey)).close();
    await expect(dial("not the key")).rejects.toThrow(/auth/i);
    child.stdin!.end();
    expect((await child).exitCode).toBe(0);
  });

  it("refuses a key from both places, and standard input that ends before a line", async () => {
    const start = (extra: Record<string, string>, input: string) =>
      execa(process.execPath, [BIN, "-a", `unix!${join(s.root, "never.sock")}`, "--key-stdin"], {
        env: { ...homes(s), PATH: process.env.PATH, ...extra },
        extendEnv: false,
        reject: false,
        input,
      });
    const both = await start({ OLLIE_TOOLSRV_KEY: serviceKey }, `${serviceKey}\n`);
    expect(both.exitCode).toBe(2);
    expect(both.stderr).toContain("--key-stdin and OLLIE_TOOLSRV_KEY both give the key");
    const cut = await start({}, serviceKey);
    expect(cut.exitCode).toBe(1);
    expect(cut.stderr).toContain("toolsrv: --key-stdin: standard input ended before a whole line");
  });
});

describe("--require-sandbox", () => {
  it("starts where sandboxed commands can run, and refuses to where they cannot, saying why", async () => {
    const start = (args: string[]) =>
      execa(
        process.execPath,
        [BIN, "-a", `unix!${join(s.root, "required.sock")}`, "--require-sandbox", "--print-address", ...args],
        {
          env: { ...homes(s), PATH: process.env.PATH, OLLIE_TOOLSRV_KEY: serviceKey },
          extendEnv: false,
          reject: false,
          stdin: "pipe",
        },
      );
    const serving = start(["--exit-with-stdin"]);
    await new Promise<void>((resolve, reject) => {
      serving.stdout!.once("data", () => resolve());
      void serving.then((r) => reject(new Error(`toolsrv exited: ${r.stderr}`)));
    });
    serving.stdin!.end();
    expect((await serving).exitCode).toBe(0);

    // An overlay naming a variable toolsrv's environment lacks: no call could be sandboxed.
    mkdirSync(join(s.config, "ollie", "sandbox"), { recursive: true });
    writeFileSync(
      join(s.config, "ollie", "sandbox", "needs-var.yaml"),
      "filesystem:\n  ro: ['{OLLIE_NOT_SET}/data']\n",
    );
    // Its standard input stays open: a toolsrv that cannot start must not be kept alive by it.
    const refused = await start(["--sandbox", "needs-var", "--exit-with-stdin"]);
    expect(refused.exitCode).toBe(1);
    expect(refused.stderr).toMatch(
      /ERROR toolsrv: .*needs-var\.yaml:2:8: filesystem\.ro\[0\]: \{OLLIE_NOT_SET\} is used but not set/,
    );
  });
});
