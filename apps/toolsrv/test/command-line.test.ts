import { readFileSync } from "node:fs";
import { join } from "node:path";
import { NinepClient } from "@ollie/ninep";
import { execa } from "execa";
import { afterAll, describe, expect, it } from "vitest";
import { BIN, BUNDLED, homes, scratch } from "./daemon.js";

const s = scratch("toolsrv-cli-");
afterAll(() => s.remove());

const { version } = JSON.parse(readFileSync(new URL("../package.json", import.meta.url), "utf8"));
const env = { ...homes(s), PATH: process.env.PATH, OLLIE_MEMORY_PATH: join(s.root, "memory") };

const toolsrv = (args: string[], extra: Record<string, string> = {}) =>
  execa(process.execPath, [BIN, ...args], { env: { ...env, ...extra }, extendEnv: false, reject: false });

/** Starts toolsrv with `--print-address` and waits for the address on stdout; stderr is collected. */
async function serving(name: string, args: string[], extra: Record<string, string> = {}) {
  const address = `unix!${join(s.root, `${name}.sock`)}`;
  const child = toolsrv(["-a", address, "--tools-path", BUNDLED, "--print-address", ...args], extra);
  let stderr = "";
  child.stderr!.on("data", (c: Buffer) => {
    stderr += c.toString();
  });
  const printed = await new Promise<string>((resolve, reject) => {
    child.stdout!.once("data", (c: Buffer) => resolve(c.toString()));
    child.then(() => reject(new Error(`toolsrv exited: ${stderr}`)));
  });
  return {
    address,
    printed,
    stderr: () => stderr,
    stop: async () => {
      child.kill("SIGTERM");
      return await child;
    },
  };
}

describe("toolsrv's command line", () => {
  it("prints its usage on stdout for --help and -h", async () => {
    for (const flag of ["--help", "-h"]) {
      const r = await toolsrv([flag]);
      expect(r).toMatchObject({ exitCode: 0, stderr: "" });
      expect(r.stdout).toMatch(/^usage: toolsrv .*\n {2}--log-level LEVEL /s);
    }
  });

  it("prints its version alone for --version", async () => {
    const r = await toolsrv(["--version"]);
    expect(r).toMatchObject({ exitCode: 0, stdout: version, stderr: "" });
  });

  it("exits 2 on a usage mistake, saying what it is before the usage", async () => {
    const cases: Array<[string[], Record<string, string>, string]> = [
      [["--frobnicate"], {}, "toolsrv: Unknown option '--frobnicate'"],
      [["extra"], {}, "toolsrv: Unexpected argument 'extra'"],
      [
        ["--log-level", "loud"],
        {},
        "toolsrv: --log-level: 'loud' is not a level (error, warn, info, debug, trace, silent)",
      ],
      [[], { OLLIE_LOG: "info,audit=chatty" }, "toolsrv: $OLLIE_LOG: 'chatty' is not a level"],
    ];
    for (const [args, extra, problem] of cases) {
      const r = await toolsrv(args, extra);
      expect(r.exitCode).toBe(2);
      expect(r.stdout).toBe("");
      expect(r.stderr.startsWith(problem)).toBe(true);
      expect(r.stderr).toMatch(/\nusage: toolsrv /);
    }
  });
});

describe("toolsrv's log", () => {
  it("says it serves at info, and prints its address on stdout with --print-address", async () => {
    const t = await serving("info", []);
    expect(t.printed).toBe(`${t.address}\n`);
    expect(t.stderr()).toMatch(
      /^\S+Z INFO {2}toolsrv: serving 1 tool directories on unix!\S+; unauthenticated/m,
    );
    // How each resource limit is enforced is for debug (a WARN for one that is not).
    expect(t.stderr()).not.toMatch(/INFO {2}toolsrv: limit on/);
    expect((await t.stop()).exitCode).toBe(0);
  });

  it("says at debug how each limit is enforced, and where it serves with a key when it printed the address", async () => {
    const t = await serving("debug", ["--log-level", "debug"], { OLLIE_TOOLSRV_KEY: "a key" });
    expect(t.stderr()).toMatch(/^\S+Z (DEBUG|WARN {2}) toolsrv: limit on processes: 512 tasks per agent/m);
    expect(t.stderr()).toMatch(
      /^\S+Z DEBUG toolsrv: serving 1 tool directories on unix!\S+; every attach must prove its key$/m,
    );
    expect((await t.stop()).exitCode).toBe(0);
  });

  it("says nothing below its --log-level, which wins over $OLLIE_LOG, and still serves", async () => {
    // error, not warn: a machine where a resource limit cannot be enforced warns of it at start.
    const t = await serving("quiet", ["--log-level", "error"], { OLLIE_LOG: "trace" });
    const client = await NinepClient.dial(t.address);
    await client.attach({ uname: "glenda" });
    client.close();
    expect((await t.stop()).exitCode).toBe(0);
    expect(t.stderr()).toBe("");
  });

  it("traces 9P messages with -D, in the 9p category", async () => {
    const t = await serving("traced", ["-D"]);
    const client = await NinepClient.dial(t.address);
    await client.attach({ uname: "glenda" });
    client.close();
    await t.stop();
    expect(t.stderr()).toMatch(/\n\S+Z TRACE toolsrv\[9p\]: <- Tversion /);
    expect(t.stderr()).toMatch(/\n\S+Z TRACE toolsrv\[9p\]: -> Rattach /);
  });
});
