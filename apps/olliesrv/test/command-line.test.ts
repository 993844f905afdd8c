import { mkdirSync, readFileSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { hmacAuthenticator, NinepClient } from "@ollie/ninep";
import { execa } from "execa";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { OLLIESRV, type Ollie, startOllie } from "./harness.js";

const { version } = JSON.parse(readFileSync(new URL("../package.json", import.meta.url), "utf8"));

const olliesrv = (args: string[], env: Record<string, string> = {}) =>
  execa(process.execPath, [OLLIESRV, ...args], {
    env: { PATH: process.env.PATH ?? "/usr/bin:/bin", ...env },
    extendEnv: false,
    reject: false,
  });

describe("olliesrv's command line", () => {
  it("prints its usage on stdout for --help and -h", async () => {
    for (const flag of ["--help", "-h"]) {
      const r = await olliesrv([flag]);
      expect(r).toMatchObject({ exitCode: 0, stderr: "" });
      expect(r.stdout).toMatch(/^usage: olliesrv .*\n {2}--log-level LEVEL /s);
    }
  });

  it("prints its version alone for --version", async () => {
    expect(await olliesrv(["--version"])).toMatchObject({ exitCode: 0, stdout: version, stderr: "" });
  });

  it("exits 2 on a usage mistake, saying what it is before the usage", async () => {
    const cases: Array<[string[], Record<string, string>, string]> = [
      [["--frobnicate"], {}, "olliesrv: Unknown option '--frobnicate'"],
      [["extra"], {}, "olliesrv: Unexpected argument 'extra'"],
      [["--max-depth", "deep"], {}, "olliesrv: --max-depth takes a whole number, not 'deep'\n"],
      [
        ["--max-peer-connections", "many"],
        {},
        "olliesrv: --max-peer-connections takes a whole number, not 'many'\n",
      ],
      [["--ninep-limit", "maxPeers=3"], {}, "olliesrv: --ninep-limit: no limit 'maxPeers' ("],
      [["--tcp", "x:y"], {}, "olliesrv: --tcp takes PORT or HOST:PORT, not 'x:y'\n"],
      [
        ["--mount-socket", "tcp!localhost!564"],
        {},
        "olliesrv: --mount-socket takes a Unix socket path or none, not 'tcp!localhost!564'\n",
      ],
      [["--log-level", "info,9p=loud"], {}, "olliesrv: --log-level: 'loud' is not a level ("],
      [
        [],
        { OLLIE_LOG: "info,,audit=warn" },
        "olliesrv: $OLLIE_LOG: 'info,,audit=warn' has an empty setting",
      ],
    ];
    for (const [args, env, problem] of cases) {
      const r = await olliesrv(args, env);
      expect(r.exitCode).toBe(2);
      expect(r.stdout).toBe("");
      expect(r.stderr.startsWith(problem)).toBe(true);
      expect(r.stderr).toMatch(/\nusage: olliesrv /);
    }
  });
});

describe("olliesrv's log", () => {
  let o: Ollie;
  beforeAll(async () => {
    o = await startOllie("olliesrv-log-", { args: ["-D"] });
  });
  afterAll(async () => {
    await o.stop();
    await o.remove();
  });

  it("traces its own 9P messages with -D, and not its toolsrv's", async () => {
    // A session loads its agent's tools from toolsrv: traffic toolsrv would trace if -D were passed on.
    await o.create(`cwd=${o.work}`);
    await o.read("session/idx");
    expect(await o.logged("[9p]: -> Rread")).toMatch(/\n\S+Z TRACE olliesrv\[9p\]: <- Tattach /);
    expect(o.log()).not.toContain("toolsrv[9p]");
  });
});

describe("olliesrv held to a threshold", () => {
  let o: Ollie;
  beforeAll(async () => {
    // A home with everything made (owner key, directories); each test starts a daemon of its own in it.
    o = await startOllie("olliesrv-quiet-");
    await o.stop();
  });
  afterAll(() => o.remove());

  /**
   * Starts olliesrv on `o`'s home, waits until it serves and the owner attaches, and stops it again: with
   * SIGTERM, or with `ctrl-c` as a terminal's Ctrl-C does, a SIGINT to its whole process group.
   */
  async function serveOnce(
    args: string[],
    env: Record<string, string> = {},
    stop: "sigterm" | "ctrl-c" = "sigterm",
  ) {
    const child = execa(process.execPath, [OLLIESRV, "-a", o.address, "--print-address", ...args], {
      env: { ...o.env, ...env },
      extendEnv: false,
      reject: false,
      // A process group of its own, as a shell's job has.
      detached: stop === "ctrl-c",
    });
    // Ready when it prints its address.
    await new Promise<void>((resolve, reject) => {
      child.stdout!.once("data", () => resolve());
      child.then((r) => reject(new Error(`olliesrv did not serve:\n${r.stderr}`)));
    });
    const client = await NinepClient.dial(o.address);
    await client.attach({ uname: o.owner, authenticator: hmacAuthenticator(o.ownerKey()) });
    client.close();
    if (stop === "ctrl-c") process.kill(-child.pid!, "SIGINT");
    else child.kill("SIGTERM");
    return await child;
  }

  it("says one line at info, where it serves, and nothing when a Ctrl-C stops it", async () => {
    // A normal start: one backend, which answers.
    const config = join(o.root, "quiet-config");
    mkdirSync(join(config, "ollie"), { recursive: true });
    writeFileSync(
      join(config, "ollie", "backends.conf"),
      `[mock]\ntype = openai\nurl = ${o.mock.baseUrl("openai")}\nmodel = mock-model\n`,
    );
    const r = await serveOnce([], { XDG_CONFIG_HOME: config }, "ctrl-c");
    expect(r.exitCode).toBe(0);
    expect(r.stderr).toMatch(
      /^\S+Z INFO {2}olliesrv: serving on unix!\S+ \(toolsrv at unix!\S+\); default backend: mock$/,
    );
  });

  it("gives the start-up hints at debug, its toolsrv's lines among them", async () => {
    const { stderr: log } = await serveOnce(["--log-level", "debug"]);
    expect(log).toMatch(/^\S+Z DEBUG olliesrv: started toolsrv pid \d+\n/);
    expect(log).toMatch(/\n\S+Z DEBUG toolsrv: serving \d+ tool directories on unix!\S+; every attach must/);
    expect(log).toMatch(/\n\S+Z INFO {2}olliesrv: serving on unix!\S+ \(toolsrv at unix!/);
    expect(log).toMatch(/\n\S+Z DEBUG olliesrv: try: ollie -a /);
    expect(log).toMatch(/\n\S+Z DEBUG olliesrv: you attach as \S+, proven with /);
    expect(log).toMatch(/\n\S+Z DEBUG olliesrv\[sessions\]: restored 0 sessions from /);
  });

  it("serves with nothing on stderr at --log-level error, which it passes on to toolsrv", async () => {
    expect(await serveOnce(["--log-level", "error"], { OLLIE_LOG: "trace" })).toMatchObject({
      exitCode: 0,
      stderr: "",
    });
  });

  it("takes $OLLIE_LOG, and so does the toolsrv it starts", async () => {
    const r = await serveOnce([], { OLLIE_LOG: "warn,audit=info" });
    expect(r).toMatchObject({ exitCode: 0, stderr: "" });
  });
});
