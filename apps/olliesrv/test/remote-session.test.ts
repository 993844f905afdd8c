import { randomUUID } from "node:crypto";
import { existsSync, mkdirSync, readdirSync, readFileSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { processesMarked, processesWhere, processGone } from "@ollie/sandbox/testing";
import { afterAll, beforeAll, describe, expect, it, vi } from "vitest";
import { type Ollie, prompt, startOllie, WAIT, watchStates } from "./harness.js";
import { SSHD, startSshd, type TestSshd } from "./sshd.js";

/**
 * A session whose tools run on another host over ssh: a real sshd on a loopback port stands for the host,
 * with its own host key and a key for this account, and another directory of this machine for its disk.
 */
let sshd: TestSshd;
/** A new session of the coding agent whose tools run in `remoteWork` on the test host. */
async function remoteSession() {
  const id = await o.create(`agent=coding remote=${sshd.destination}:${remoteWork}`);
  return { id, agent: `session/${id}/agent/main` };
}

/** Has `agent` run `command` in a shell, in one turn prompted with `text`. */
async function shellThere(agent: string, command: string, text: string): Promise<void> {
  o.mock.enqueue({ toolCalls: [{ name: "shell", arguments: { command } }] }, { text: "Done." });
  await prompt(o, agent, text);
}

/** The bundles sent to the host so far. */
const bundlesThere = () => readdirSync(join(remoteData, "bundles")).filter((n) => /^[0-9a-f]{32}$/.test(n));

/**
 * This machine's processes whose command line matches `pattern` and names `mine` (a path of this file's
 * host): other test files run their own hosts' toolsrv and ssh at the same time.
 */
const running = (pattern: RegExp, mine: string) =>
  processesWhere("cmdline", (words) => {
    const line = words.join(" ");
    return line.includes(mine) && pattern.test(line);
  });
let o: Ollie;
let remoteData: string;
let remoteWork: string;

beforeAll(async () => {
  if (!SSHD) return;
  sshd = await startSshd();
  o = await startOllie("olliesrv-remote-", {
    setup: (configDir) => {
      // The user's own tool, which the host's toolsrv must have too.
      mkdirSync(join(configDir, "tools"), { recursive: true });
      writeFileSync(
        join(configDir, "tools", "where_am_i"),
        '#!/bin/sh\n# ollie:tool where_am_i\n# ollie:description Says where it runs.\necho "mine, in $(pwd)"\n',
        { mode: 0o755 },
      );
      writeFileSync(
        join(configDir, "remote.yaml"),
        `hosts:\n  "*":\n    ssh_options: ["-F", "${sshd.configFile}"]\n    data_dir: ${join(sshd.dir, "data")}\n`,
      );
    },
  });
  remoteData = join(sshd.dir, "data");
  remoteWork = join(sshd.dir, "work");
  mkdirSync(remoteWork);
});

afterAll(async () => {
  await o?.stop();
  await o?.remove();
  await sshd?.stop();
});

// Each start on the host is several ssh sessions, and each runs the remote user's shell start-up files: on a
// loaded machine that takes its time.
describe.skipIf(!SSHD)("a remote session", { timeout: 90_000 }, () => {
  it("runs its shell on the host, in the host's directory, while the loop stays here; and comes back after a restart", async () => {
    const { id, agent } = await remoteSession();
    o.mock.enqueue(
      { toolCalls: [{ name: "shell", arguments: { command: "pwd > where.txt; cat where.txt" } }] },
      { toolCalls: [{ name: "file_write", arguments: { path: "notes.txt", content: "written there\n" } }] },
      { toolCalls: [{ name: "file_read", arguments: { path: "notes.txt" } }] },
      { toolCalls: [{ name: "tool_load", arguments: { names: ["where_am_i"] } }] },
      { toolCalls: [{ name: "where_am_i", arguments: {} }] },
      { text: "Done there." },
    );
    await prompt(o, agent, "Where are you?");
    expect(await o.read(`${agent}/outcome`)).toBe("done\n");
    expect(readFileSync(join(remoteWork, "where.txt"), "utf8")).toBe(`${remoteWork}\n`);
    expect(readFileSync(join(remoteWork, "notes.txt"), "utf8")).toBe("written there\n");
    expect(await o.read(`${agent}/chat`)).toMatch(/← file_read[\s\S]*written there/);
    expect(await o.read(`${agent}/cfg`)).toContain(
      `cwd=${remoteWork}\nskills=\nstate=idle\nremote=${sshd.destination}\nremote_state=connected\n`,
    );
    expect(await o.read(`${agent}/chat`)).toContain(`mine, in ${remoteWork}`);
    // toolsrv, and the user's tools and policies, went there as bundles named by their content.
    expect(bundlesThere()).toHaveLength(2);
    expect(o.log()).toMatch(new RegExp(`toolsrv on ${sshd.destination} at .*, forwarded to `));

    const saved = JSON.parse(readFileSync(join(o.root, "data", "ollie", "sessions", `${id}.json`), "utf8"));
    expect(saved).toMatchObject({ remote: sshd.destination, cwd: remoteWork });
    await o.stop();
    await o.restart();
    await shellThere(agent, "echo again > again.txt", "Once more");
    expect(existsSync(join(remoteWork, "again.txt"))).toBe(true);
  });

  it("shares the host's toolsrv with a second session, and leaves no process of a stopped call there", async () => {
    const logBefore = o.log().length;
    const { agent } = await remoteSession();
    const marker = `OLLIE_TEST_MARK=${randomUUID()}`;
    o.mock.enqueue({
      toolCalls: [{ name: "shell", arguments: { command: `export ${marker}; sleep 1000 & sleep 1000` } }],
    });
    const states = await watchStates(o, agent);
    await o.fsys.writeFile(`${agent}/prompt`, "Wait there");
    await vi.waitFor(() => expect(processesMarked(marker).length).toBeGreaterThanOrEqual(2), WAIT);
    await o.fsys.writeFile(`${agent}/ctl`, "stop\n");
    await states.until("idle");
    await vi.waitFor(() => expect(processesMarked(marker)).toEqual([]), WAIT);
    expect(bundlesThere()).toHaveLength(2);
    expect(o.log().slice(logBefore)).not.toContain("toolsrv on ");
  });

  it("fails a call the lost connection cut off, says why, and reconnects at the next call", async () => {
    const { agent } = await remoteSession();
    o.mock.enqueue(
      { toolCalls: [{ name: "shell", arguments: { command: "echo $$ > cut.pid; sleep 1000" } }] },
      { text: "The host went away." },
    );
    const states = await watchStates(o, agent);
    await o.fsys.writeFile(`${agent}/prompt`, "Run it there");
    const pidFile = join(remoteWork, "cut.pid");
    await vi.waitFor(() => expect(existsSync(pidFile)).toBe(true), WAIT);
    const [master] = running(/ControlPath=\S*ollie-remote\/ssh-\S* .*-M /, sshd.configFile);
    expect(master, "the ssh master connection").toBeDefined();
    process.kill(master!, "SIGKILL");
    await states.until("idle");
    const chat = await o.read(`${agent}/chat`);
    expect(chat).toMatch(/connection to \S+ lost \(.*\); the call did not finish there/);
    // The next round's tool list came through a new connection, not the dead forward.
    expect(chat).not.toContain("could not be refreshed");
    // The loss is logged with ssh's reason, and the host is connected again.
    expect(o.log()).toContain(`connection to ${sshd.destination} lost: ssh was ended by SIGKILL`);
    expect(await o.read(`${agent}/cfg`)).toMatch(/remote_state=connected\n$/);
    await vi.waitFor(() => expect(processGone(Number(readFileSync(pidFile, "utf8")))).toBe(true), WAIT);

    await shellThere(agent, "echo back > back.txt", "Try again");
    expect(readFileSync(join(remoteWork, "back.txt"), "utf8")).toBe("back\n");
  });

  it("starts toolsrv there again when it ended on its own", async () => {
    const { agent } = await remoteSession();
    await shellThere(agent, "true", "Are you there?");
    const [toolsrv] = running(/toolsrv\.js -a unix!\S*\/data\/run\/toolsrv-/, remoteData);
    expect(toolsrv, "toolsrv on the host").toBeDefined();
    process.kill(toolsrv!, "SIGKILL");
    await vi.waitFor(() => expect(o.log()).toMatch(/toolsrv on \S+ ended: toolsrv exited/), WAIT);
    await shellThere(agent, "echo again > restarted.txt", "And now?");
    const restarted = join(remoteWork, "restarted.txt");
    // Should the call not have run there, the chat and the log say why.
    expect(existsSync(restarted), `${await o.read(`${agent}/chat`)}\n${o.log()}`).toBe(true);
    expect(readFileSync(restarted, "utf8")).toBe("again\n");
  });

  it("ends a call its toolsrv there was killed under, saying so, and starts toolsrv there again at the next call", async () => {
    const { agent } = await remoteSession();
    o.mock.enqueue(
      { toolCalls: [{ name: "shell", arguments: { command: "echo $$ > killed.pid; sleep 1000" } }] },
      { text: "toolsrv went away." },
    );
    const states = await watchStates(o, agent);
    await o.fsys.writeFile(`${agent}/prompt`, "Run it there");
    const pidFile = join(remoteWork, "killed.pid");
    await vi.waitFor(() => expect(existsSync(pidFile)).toBe(true), WAIT);
    const [toolsrv] = running(/toolsrv\.js -a unix!\S*\/data\/run\/toolsrv-/, remoteData);
    expect(toolsrv, "toolsrv on the host").toBeDefined();
    process.kill(toolsrv!, "SIGKILL");
    await states.until("idle");
    expect(await o.read(`${agent}/chat`)).toMatch(
      /connection to \S+ lost \(.*\); the call did not finish there/,
    );
    // What the call started there ended with toolsrv.
    await vi.waitFor(() => expect(processGone(Number(readFileSync(pidFile, "utf8")))).toBe(true), WAIT);
    await shellThere(agent, "echo again > after-kill.txt", "And now?");
    const after = join(remoteWork, "after-kill.txt");
    expect(existsSync(after), `${await o.read(`${agent}/chat`)}\n${o.log()}`).toBe(true);
    expect(readFileSync(after, "utf8")).toBe("again\n");
  });

  it("refuses a host whose key is not the one known: the prompt fails with ssh's reason", async () => {
    const forged = await startSshd();
    try {
      forged.forgeHostKey();
      writeFileSync(
        join(o.root, "config", "ollie", "remote.yaml"),
        `hosts:\n  "*":\n    ssh_options: ["-F", "${sshd.configFile}"]\n    data_dir: ${remoteData}\n` +
          `  forged@127.0.0.1:\n    ssh_options: ["-F", "${forged.configFile}"]\n`,
      );
      const id = await o.create(`agent=coding remote=forged@127.0.0.1:${remoteWork}`);
      const agent = `session/${id}/agent/main`;
      await expect(o.fsys.writeFile(`${agent}/prompt`, "Hello there")).rejects.toThrow(
        /ssh to forged@127\.0\.0\.1: .*(Host key verification failed|HOST IDENTIFICATION HAS CHANGED)/,
      );
    } finally {
      await forged.stop();
    }
  });

  it("moves a session's tools to the host and back with ctl", async () => {
    const id = await o.create(`agent=coding cwd=${o.work}`);
    const agent = `session/${id}/agent/main`;
    await o.fsys.writeFile(`session/${id}/ctl`, `remote ${sshd.destination}:${remoteWork}\n`);
    expect(await o.read(`${agent}/cfg`)).toContain(`cwd=${remoteWork}\n`);
    expect(await o.read(`${agent}/cfg`)).toContain(`remote=${sshd.destination}\n`);
    await shellThere(agent, "echo moved > moved.txt", "Write it there");
    expect(readFileSync(join(remoteWork, "moved.txt"), "utf8")).toBe("moved\n");

    await o.fsys.writeFile(`session/${id}/ctl`, `local ${o.work}\n`);
    const cfg = await o.read(`${agent}/cfg`);
    expect(cfg).toContain(`cwd=${o.work}\n`);
    expect(cfg).not.toContain("remote=");
    await expect(o.fsys.writeFile(`session/${id}/ctl`, "remote -oProxyCommand=x\n")).rejects.toThrow(
      "is not an ssh destination",
    );
  });

  it("refuses a remote that is not an ssh destination", async () => {
    await expect(o.create("remote=-oProxyCommand=evil")).rejects.toThrow("is not an ssh destination");
  });
});
