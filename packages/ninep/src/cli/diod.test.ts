import { execFileSync } from "node:child_process";
import {
  existsSync,
  mkdirSync,
  mkdtempSync,
  readdirSync,
  readFileSync,
  rmSync,
  statSync,
  writeFileSync,
} from "node:fs";
import { tmpdir, userInfo } from "node:os";
import { join } from "node:path";
import { fileURLToPath } from "node:url";
import { execa, type ResultPromise } from "execa";
import { afterAll, beforeAll, describe, expect, it, vi } from "vitest";

// diod (Debian's `diod` package) both ways: its 9P2000.L clients against `ninep ramfs` as users run it, and
// its server against the `ninep` command speaking 9P2000.L (-L).
const has = (command: string) => {
  try {
    execFileSync("sh", ["-c", `command -v ${command}`], { stdio: "ignore" });
    return true;
  } catch {
    return false;
  }
};
const DIOD = has("diodls") && has("diodcat") && has("diod");
if (!DIOD) console.warn("diod (diod, diodls, diodcat) is not installed: the tests with it are skipped");

const bin = fileURLToPath(new URL("../../bin/ninep.js", import.meta.url));
const dir = mkdtempSync(join(tmpdir(), "ninep-diod-"));
const env = { NAMESPACE: join(dir, "ns") };
const socket = join(dir, "ns", "ramfs");
let ramfs: ResultPromise;
let diodServer: ResultPromise | undefined;
let diodLog = "";

/**
 * The fids a connection's diod trace (-d 1) leaves open: attached or walked to (a walk of every name, to a
 * new fid) and not clunked or removed. A request counts once its reply is in the trace.
 */
function fidsLeftOpen(trace: string): number[] {
  const asked = new Map<string, string>();
  const open = new Set<number>();
  for (const line of trace.split("\n")) {
    const m = /^diod: P9_([TR])(\w+) tag (\d+)(.*)$/.exec(line);
    if (!m) continue;
    const [, dir, , tag, rest] = m;
    if (dir === "T") {
      asked.set(tag!, `${m[2]}${rest}`);
      continue;
    }
    const request = asked.get(tag!);
    asked.delete(tag!);
    if (!request || m[2] === "LERROR") continue;
    const fid = Number(/ fid (\d+)/.exec(request)?.[1]);
    if (request.startsWith("ATTACH")) open.add(fid);
    else if (request.startsWith("CLUNK") || request.startsWith("REMOVE")) open.delete(fid);
    else if (request.startsWith("WALK")) {
      const newfid = Number(/ newfid (\d+)/.exec(request)![1]);
      const names = Number(/ nwname (\d+)/.exec(request)![1]);
      if (Number(/ nwqid (\d+)/.exec(rest!)![1]) === names) open.add(newfid);
    }
  }
  return [...open].sort();
}

const ninep = (args: string[], input?: string) =>
  execa(process.execPath, [bin, ...args], { env, input, reject: false });
const diod = (command: string, args: string[]) =>
  execa(command, ["-s", socket, "-a", "", ...args], { reject: false });

beforeAll(async () => {
  if (!DIOD) return;
  ramfs = execa(process.execPath, [bin, "ramfs"], { env, reject: false });
  await new Promise<void>((resolve, reject) => {
    let said = "";
    ramfs.stderr!.on("data", (chunk: Buffer) => {
      said += chunk.toString();
      if (said.includes("serving on")) resolve();
    });
    ramfs.then(() => reject(new Error(`ninep ramfs exited: ${said}`)));
  });
  for (const args of [
    ["create", "-d", "ramfs/notes"],
    ["create", "ramfs/notes/todo"],
    ["create", "ramfs/top"],
  ])
    expect((await ninep(args)).exitCode).toBe(0);
  expect((await ninep(["write", "ramfs/notes/todo"], "buy milk\nfix 9p\n")).exitCode).toBe(0);
});

afterAll(async () => {
  ramfs?.kill("SIGTERM");
  await ramfs;
  diodServer?.kill("SIGTERM");
  await diodServer;
  rmSync(dir, { recursive: true, force: true });
});

describe.skipIf(!DIOD)("diod's clients with ninep ramfs (9P2000.L)", () => {
  it("diodls lists a directory, and with -l each entry's mode, size and owner", async () => {
    expect((await diod("diodls", ["/"])).stdout.split("\n").sort()).toEqual(["notes", "top"]);
    const long = await diod("diodls", ["-l", "/notes"]);
    expect(long.exitCode).toBe(0);
    // The owner is the user running ramfs, numbered as that user's uid and named back by diodls.
    const me = userInfo().username;
    expect(long.stdout).toMatch(new RegExp(`^-rw-r--r--\\.? +1 +${me} +${me} +16 .* todo$`));
  });

  it("diodls attaches the root by the aname '/' as by '', and an unknown aname is not found", async () => {
    const byPath = await execa("diodls", ["-s", socket, "-a", "/", "/"], { reject: false });
    expect(byPath).toMatchObject({ exitCode: 0, stderr: "" });
    expect(byPath.stdout.split("\n").sort()).toEqual(["notes", "top"]);
    const unknown = await execa("diodls", ["-s", socket, "-a", "/elsewhere", "/"], { reject: false });
    expect(unknown.exitCode).not.toBe(0);
    expect(unknown.stderr).toBe("diodls: error attaching to aname='/elsewhere': No such file or directory");
  });

  it("diodcat reads a file whole, and both say what is missing", async () => {
    expect(await diod("diodcat", ["/notes/todo"])).toMatchObject({ exitCode: 0, stdout: "buy milk\nfix 9p" });
    const missing = await diod("diodcat", ["/nope"]);
    expect(missing.exitCode).not.toBe(0);
    expect(missing.stderr).toContain("No such file or directory");
  });
});

describe.skipIf(!DIOD)("the ninep command (-L) with diod's server", () => {
  const exported = join(dir, "export");
  const diodSocket = join(dir, "diod.sock");
  const ninepL = (args: string[], input?: string) =>
    execa(process.execPath, [bin, "-L", "-a", `unix!${diodSocket}`, "-A", exported, ...args], {
      input,
      reject: false,
    });

  beforeAll(async () => {
    mkdirSync(join(exported, "sub"), { recursive: true });
    writeFileSync(join(exported, "hello.txt"), "from diod\n");
    // No authentication, no user database, no configuration file: it serves `exported` to its own user.
    // -d 1 logs every message it decodes and sends, for the fid accounting below.
    diodServer = execa(
      "diod",
      ["-f", "-n", "-N", "-c", "/dev/null", "-d", "1", "-l", diodSocket, "-e", exported],
      { reject: false },
    );
    diodServer.stderr!.on("data", (chunk: Buffer) => {
      diodLog += chunk.toString();
    });
    await vi.waitFor(() => expect(existsSync(diodSocket)).toBe(true), { timeout: 10_000, interval: 20 });
  });

  it("lists with Treaddir and reads, as a Linux client would", async () => {
    expect((await ninepL(["ls", "/"])).stdout).toBe("hello.txt\nsub");
    expect((await ninepL(["read", "hello.txt"])).stdout).toBe("from diod");
    const traced = await execa(
      process.execPath,
      [bin, "-L", "-D", "-a", `unix!${diodSocket}`, "-A", exported, "ls", "-l", "/"],
      {
        reject: false,
      },
    );
    expect(traced.stderr).toMatch(/-> Tversion .* version '9P2000\.L'/);
    expect(traced.stderr).toMatch(/-> Treaddir /);
    expect(traced.stdout).toMatch(/^--rw-r--r-- \d+ \d+ +10 .* hello\.txt$/m);
  });

  it("creates, writes, makes a directory and removes, which the exported directory shows", async () => {
    expect((await ninepL(["create", "sub/new.txt"])).exitCode).toBe(0);
    expect((await ninepL(["write", "sub/new.txt"], "written over 9P2000.L\n")).exitCode).toBe(0);
    expect(readFileSync(join(exported, "sub", "new.txt"), "utf8")).toBe("written over 9P2000.L\n");
    expect((await ninepL(["create", "-d", "sub/made"])).exitCode).toBe(0);
    expect(statSync(join(exported, "sub", "made")).isDirectory()).toBe(true);
    expect((await ninepL(["rm", "sub/new.txt", "sub/made"])).exitCode).toBe(0);
    expect(readdirSync(join(exported, "sub"))).toEqual([]);
  });

  it("says, without -L, that diod refused 9P2000, and suggests -L", async () => {
    const plain = await execa(
      process.execPath,
      [bin, "-a", `unix!${diodSocket}`, "-A", exported, "ls", "/"],
      {
        reject: false,
      },
    );
    expect(plain).toMatchObject({
      exitCode: 1,
      stderr: `ninep: /: unix!${diodSocket}: the server refused 9P2000 (it answered Rlerror: Input/output error): it may speak only 9P2000.L (try -L)`,
    });
  });

  it("clunks every fid it attached or walked, its root's included, whatever the command did", async () => {
    const commands = [
      ["ls", "-l", "/"],
      ["read", "hello.txt"],
      ["stat", "sub"],
      ["read", "nope"],
      ["create", "sub/tmp.txt"],
      ["rm", "sub/tmp.txt"],
    ];
    for (const args of commands) {
      const from = diodLog.length;
      const run = await ninepL(args);
      expect(run.stderr, args.join(" ")).toMatch(/^$|No such file or directory/);
      // diod logs a reply as it sends it: wait until this connection's trace holds every reply.
      await vi.waitFor(() => expect(fidsLeftOpen(diodLog.slice(from)), args.join(" ")).toEqual([]), {
        timeout: 10_000,
        interval: 20,
      });
    }
    expect(diodLog).not.toContain("unclunked");
  });

  it("cleans '..' lexically: /sub/.. is the root, which rm refuses, and .. above the root stays there", async () => {
    const from = diodLog.length;
    const rm = await ninepL(["rm", "/sub/.."]);
    expect(rm).toMatchObject({ exitCode: 1, stderr: "ninep: /sub/..: cannot remove the root" });
    expect(existsSync(join(exported, "sub"))).toBe(true);
    expect((await ninepL(["ls", "../../sub/../.."])).stdout).toBe("hello.txt\nsub");
    expect((await ninepL(["read", "sub/../../hello.txt"])).stdout).toBe("from diod");
    await vi.waitFor(() => expect(diodLog.slice(from)).toMatch(/P9_TWALK .* 'hello\.txt'/), {
      timeout: 10_000,
      interval: 20,
    });
    // No ".." ever crosses the wire: the client walks the cleaned path.
    expect(diodLog.slice(from)).not.toContain("'..'");
  });

  it("says a missing file's errno in words", async () => {
    const missing = await ninepL(["read", "nope"]);
    expect(missing).toMatchObject({ exitCode: 1, stderr: "ninep: nope: No such file or directory" });
  });
});
