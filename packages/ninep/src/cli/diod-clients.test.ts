import { execFileSync } from "node:child_process";
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir, userInfo } from "node:os";
import { join } from "node:path";
import { fileURLToPath } from "node:url";
import { execa, type ResultPromise } from "execa";
import { afterAll, beforeAll, describe, expect, it } from "vitest";

// diod's own 9P2000.L clients (Debian's `diod` package), against `ninep ramfs` as users run it.
const has = (command: string) => {
  try {
    execFileSync("sh", ["-c", `command -v ${command}`], { stdio: "ignore" });
    return true;
  } catch {
    return false;
  }
};
const DIOD = has("diodls") && has("diodcat");
if (!DIOD) console.warn("diod's clients (diodls, diodcat) are not installed: their tests are skipped");

const bin = fileURLToPath(new URL("../../bin/ninep.js", import.meta.url));
const dir = mkdtempSync(join(tmpdir(), "ninep-diod-"));
const env = { NAMESPACE: join(dir, "ns") };
const socket = join(dir, "ns", "ramfs");
let ramfs: ResultPromise;

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

  it("diodcat reads a file whole, and both say what is missing", async () => {
    expect(await diod("diodcat", ["/notes/todo"])).toMatchObject({ exitCode: 0, stdout: "buy milk\nfix 9p" });
    const missing = await diod("diodcat", ["/nope"]);
    expect(missing.exitCode).not.toBe(0);
    expect(missing.stderr).toContain("No such file or directory");
  });
});
