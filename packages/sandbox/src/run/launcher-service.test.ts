import { randomUUID } from "node:crypto";
import { once } from "node:events";
import { execa } from "execa";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { type Scratch, scratch } from "../__fixtures__/sandbox-fixture.js";
import { survivors } from "../__fixtures__/survivors.js";
import { SandboxUnavailableError } from "../errors.js";
import { ensureLauncher } from "../launcher/ensure-launcher.js";
import { parentOf } from "../testing/process-state.js";
import { runSandboxed, startSandboxed } from "./run-sandboxed.js";

let s: Scratch;
beforeAll(async () => {
  s = await scratch();
});
afterAll(() => s.cleanup());

/** Sends raw requests to a `--serve` launcher and returns the lines it answered, once stdin is closed. */
async function serveRaw(requests: Buffer[]): Promise<string[]> {
  const service = execa((await ensureLauncher()).path, ["--serve"], {
    input: Buffer.concat(requests),
    reject: false,
  });
  return (await service).stdout.split("\n").filter(Boolean);
}

function frame(fields: string[]): Buffer {
  const payload = Buffer.from(fields.map((f) => `${f}\0`).join(""));
  const length = Buffer.alloc(4);
  length.writeUInt32LE(payload.length);
  return Buffer.concat([length, payload]);
}

describe("the launcher service", () => {
  it("answers a malformed or unknown request with a refusal and goes on serving", async () => {
    const lines = await serveRaw([
      frame(["run", "1", "/", "not a count"]),
      frame(["run", "2"]),
      frame(["launch", "3"]),
      frame(["run", "4", "/", "3", "--rox", "/usr,/bin,/lib,/lib64", "true", "0"]),
    ]);
    expect(lines.slice(0, 3)).toEqual([
      "failed 1 malformed request",
      "failed 2 malformed request",
      "failed ? unknown request",
    ]);
    expect(lines[3]).toMatch(/^started 4 \d+ \d+ \d+ \d+$/);
  });

  it("is started again after it dies; the calls it was running end with an error, and their trees with them", async () => {
    const id = randomUUID();
    const running = await startSandboxed("bash", ["-c", "setsid sleep 300 & echo up; sleep 300"], {
      policy: await s.policy(),
      env: { ...s.env, OLLIE_TEST_MARK: id },
      cwd: s.rw,
    });
    running.stdin.end();
    running.stderr.resume();
    // The command runs, and has started a process that left its session: the service dies with a whole
    // tree to end, not before its call's launcher has started the command (which then never starts).
    const said = once(running.stdout.setEncoding("utf8"), "data");
    expect(await said).toEqual(["up\n"]);
    const ended = once(running.stdout.resume(), "close");
    process.kill(parentOf(running.pid)!, "SIGKILL");
    const error = await running.exit.catch((e: unknown) => e);
    expect(error).toBeInstanceOf(SandboxUnavailableError);
    expect((error as Error).message).toMatch(/^The sandbox launcher service .* stopped/);
    // Every process of the tree held the command's output: it closes when the last of them has ended.
    await ended;
    expect(survivors(`OLLIE_TEST_MARK=${id}`)).toEqual([]);
    const next = await runSandboxed("echo", ["again"], { policy: await s.policy(), env: s.env, cwd: s.rw });
    expect(next).toMatchObject({ exitCode: 0, stdout: Buffer.from("again\n") });
  });
});
