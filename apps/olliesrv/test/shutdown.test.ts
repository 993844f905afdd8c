import { existsSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { execa } from "execa";
import { afterEach, describe, expect, it } from "vitest";
import { OLLIESRV, type Ollie, startOllie, watchStates } from "./harness.js";

/**
 * Stopping olliesrv is quick and single-minded, and a second one on a live address fails at once. The
 * bounds are twice what the daemon aims for (1 s idle, 2 s with a turn running): far below the several
 * seconds a hang costs, far above scheduling noise.
 */

let o: Ollie | undefined;
afterEach(async () => {
  await o?.remove();
  o = undefined;
});

/**
 * Sends SIGTERM and returns the exit status. A daemon that waited for a running tool (a `sleep 100`) to end
 * would outlast the test's own timeout.
 */
async function stop(ollie: Ollie): Promise<number | undefined> {
  ollie.child.kill("SIGTERM");
  return (await ollie.child).exitCode;
}

describe("shutting olliesrv down", () => {
  it("exits on SIGTERM when idle, its toolsrv with it", async () => {
    o = await startOllie("olliesrv-stop-");
    expect(await stop(o)).toBe(0);
    // toolsrv removes its socket as it exits; olliesrv waits for that.
    expect(existsSync(join(o.root, "ns", "toolsrv"))).toBe(false);
  });

  it("exits on SIGTERM with a turn running a tool, without waiting for it", async () => {
    o = await startOllie("olliesrv-stop-busy-");
    const id = await o.create(`agent=coding cwd=${o.work}`);
    const agent = `session/${id}/agent/main`;
    o.mock.enqueue({ toolCalls: [{ name: "shell", arguments: { command: "sleep 100" } }] });
    const states = await watchStates(o, agent);
    await o.fsys.writeFile(`${agent}/prompt`, "Wait a long time");
    await states.until("calling: shell");
    expect(await stop(o)).toBe(0);
  });

  it("fails at once when another olliesrv serves its address, and leaves that one serving", async () => {
    o = await startOllie("olliesrv-second-");
    const second = await execa(process.execPath, [OLLIESRV, "-a", o.address], {
      env: o.env,
      extendEnv: false,
      reject: false,
      timeout: 10_000,
    });
    expect(second.timedOut).toBe(false);
    expect(second.exitCode).toBe(1);
    expect(second.stderr).toContain(
      `ERROR olliesrv: another server is listening on ${o.address.replace(/^unix!/, "")} (olliesrv pid ${o.pid})`,
    );
    expect(await o.read("session/idx")).toBe("");
    await o.stop();
  });
});

describe("starting olliesrv", () => {
  it("refuses to start on a broken backends.conf, naming its file, line and problem", async () => {
    const broken = startOllie("olliesrv-broken-conf-", {
      setup: (config) =>
        writeFileSync(
          join(config, "backends.conf"),
          "default = a\n[a]\ntype = openai\nurl = ftp://x\nmodel = m\n",
        ),
    });
    await expect(broken).rejects.toThrow(
      /ERROR olliesrv: \S+\/config\/ollie\/backends\.conf:4: url in \[a\] is not an http\(s\) URL; fix it and start again/,
    );
  });
});
