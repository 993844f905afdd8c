import { existsSync, mkdirSync, mkdtempSync, readFileSync, renameSync, rmSync, writeFileSync } from "node:fs";
import { homedir, tmpdir, userInfo } from "node:os";
import { join } from "node:path";
import { MockLlmServer } from "@ollie/backends/testing";
import { hmacAuthenticator, NinepClient, ORDWR } from "@ollie/ninep";
import { execa, type ResultPromise } from "execa";
import { afterAll, beforeAll, describe, expect, it, vi } from "vitest";
import { OLLIESRV, WAIT } from "./harness.js";

let root: string;
let mock: MockLlmServer;
let child: ResultPromise;
let stderr = "";
let logFile: string;

const logText = () => (existsSync(logFile) ? readFileSync(logFile, "utf8") : "");

/** Waits (up to WAIT) until `file` holds `pattern`, and returns its text. */
async function inFile(file: string, pattern: string | RegExp): Promise<string> {
  const read = () => (existsSync(file) ? readFileSync(file, "utf8") : "");
  await vi.waitFor(() => expect(read()).toMatch(pattern), WAIT);
  return read();
}

beforeAll(async () => {
  root = mkdtempSync(join(tmpdir(), "olliesrv-logfile-"));
  const config = join(root, "config", "ollie");
  mkdirSync(config, { recursive: true });
  mkdirSync(join(root, "tmp"));
  mock = await MockLlmServer.start();
  writeFileSync(
    join(config, "backends.conf"),
    `[mock]\ntype = openai\nurl = ${mock.baseUrl("openai")}\nmodel = mock-model\n`,
  );
  logFile = join(root, "state", "olliesrv.log");
  child = execa(process.execPath, [OLLIESRV, "-a", `unix!${join(root, "ns", "ollie")}`], {
    env: {
      HOME: root,
      XDG_CONFIG_HOME: join(root, "config"),
      XDG_DATA_HOME: join(root, "data"),
      XDG_CACHE_HOME: process.env.XDG_CACHE_HOME || join(homedir(), ".cache"),
      NAMESPACE: join(root, "ns"),
      TMPDIR: join(root, "tmp"),
      PATH: process.env.PATH ?? "/usr/bin:/bin",
      // Levels as ever, then the file: `~/` is $HOME.
      OLLIE_LOG: "debug,~/state/olliesrv.log",
    },
    extendEnv: false,
    reject: false,
  });
  child.stderr!.on("data", (c: Buffer) => {
    stderr += c.toString();
  });
  await inFile(logFile, "restored 0 sessions");
});
afterAll(async () => {
  child.kill("SIGTERM");
  await child;
  await mock.close();
  rmSync(root, { recursive: true, force: true });
});

describe("$OLLIE_LOG naming a file", () => {
  it("sends every line there, toolsrv's included (once), and says so on stderr alone", async () => {
    const said = logText();
    expect(stderr).toBe(`olliesrv: logging to ${logFile}\n`);
    expect(said).toMatch(/^\S+Z DEBUG olliesrv: started toolsrv pid \d+\n/);
    expect(said).toMatch(/DEBUG olliesrv\[sessions\]: restored 0 sessions from /);
    expect(said.match(/DEBUG toolsrv: serving /g)).toHaveLength(1);
    // The toolsrv olliesrv started got the levels, not the file: only olliesrv writes it.
    const toolsrv = /started toolsrv pid (\d+)/.exec(said)![1]!;
    const environ = readFileSync(`/proc/${toolsrv}/environ`, "utf8").split("\0");
    expect(environ).toContain("OLLIE_LOG=debug");
  });

  it("is opened again on SIGHUP, as logrotate wants", async () => {
    renameSync(logFile, `${logFile}.1`);
    child.kill("SIGHUP");
    // Something to log: a session made and killed (a `sessions` line).
    const client = await NinepClient.dial(`unix!${join(root, "ns", "ollie")}`);
    try {
      const key = readFileSync(join(root, "data", "ollie", "keys", "owner.key"), "utf8").trim();
      const fsys = await client.attach({ uname: userInfo().username, authenticator: hmacAuthenticator(key) });
      const f = await fsys.open("session/new", ORDWR);
      await f.write(`cwd=${root}`);
      const id = (await f.read(0)).toString().trim();
      await f.close();
      await fsys.writeFile(`session/${id}/ctl`, "kill\n");
      expect(await inFile(logFile, `killed session ${id}`)).toMatch(
        new RegExp(`^\\S+Z INFO {2}olliesrv\\[sessions\\]: killed session ${id}$`, "m"),
      );
      expect(readFileSync(`${logFile}.1`, "utf8")).not.toContain("killed session");
    } finally {
      client.close();
    }
    expect(child.exitCode).toBeNull();
    expect(stderr).toBe(`olliesrv: logging to ${logFile}\n`);
  });

  it("that cannot be opened stops olliesrv before it starts, naming the file (exit 1)", async () => {
    const r = await execa(process.execPath, [OLLIESRV, "--log-level", "warn,/dev/null/olliesrv.log"], {
      env: { PATH: process.env.PATH ?? "/usr/bin:/bin", HOME: root },
      extendEnv: false,
      reject: false,
    });
    expect(r.exitCode).toBe(1);
    expect(r.stderr).toMatch(/^olliesrv: cannot open the log file \/dev\/null\/olliesrv\.log: E[A-Z]+: /);
  });
});
