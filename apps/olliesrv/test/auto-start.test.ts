import {
  existsSync,
  mkdirSync,
  mkdtempSync,
  readdirSync,
  readFileSync,
  readlinkSync,
  rmSync,
  statSync,
  writeFileSync,
} from "node:fs";
import { homedir, tmpdir } from "node:os";
import { join } from "node:path";
import { PROTOCOL_VERSION } from "@agentclientprotocol/sdk";
import { connect } from "@ollie/client";
import { execa } from "execa";
import { afterAll, afterEach, describe, expect, it, vi } from "vitest";
import { startEditor } from "./acp-editor.js";
import { OLLIE, OLLIESRV } from "./harness.js";

// `ollie` from an empty home, with no olliesrv running: it starts one when a command needs it.

const roots: string[] = [];
afterAll(() => {
  for (const root of roots) rmSync(root, { recursive: true, force: true });
});

/** A user with nothing yet: an empty home (the XDG directories under it), namespace and temporary directory. */
function freshUser(extra: Record<string, string> = {}) {
  const root = mkdtempSync(join(tmpdir(), "olliesrv-autostart-"));
  roots.push(root);
  for (const dir of ["home", "tmp", "work"]) mkdirSync(join(root, dir));
  const env: Record<string, string> = {
    HOME: join(root, "home"),
    NAMESPACE: join(root, "ns"),
    TMPDIR: join(root, "tmp"),
    PATH: process.env.PATH ?? "/usr/bin:/bin",
    // The sandbox keeps its launcher in the user's cache (as the harness does), not made again per test.
    XDG_CACHE_HOME: process.env.XDG_CACHE_HOME || join(homedir(), ".cache"),
    ...extra,
  };
  return {
    root,
    env,
    socket: join(root, "ns", "ollie"),
    logFile: join(root, "home", ".local", "state", "ollie", "olliesrv.log"),
    ollie: (...args: string[]) =>
      execa(process.execPath, [OLLIE, ...args], {
        cwd: join(root, "work"),
        env,
        extendEnv: false,
        reject: false,
      }),
  };
}

type User = ReturnType<typeof freshUser>;

/** Whether process `pid` runs (a zombie no longer does). */
function alive(pid: number): boolean {
  try {
    return readFileSync(`/proc/${pid}/stat`, "utf8").split(") ")[1]![0] !== "Z";
  } catch {
    return false;
  }
}

/** The olliesrv processes serving `user`'s namespace. */
function daemons(user: User): number[] {
  return readdirSync("/proc")
    .filter((name) => /^\d+$/.test(name))
    .filter((pid) => {
      const argv = (() => {
        try {
          return readFileSync(`/proc/${pid}/cmdline`, "utf8").split("\0");
        } catch {
          return [];
        }
      })();
      return argv.some((a) => a.endsWith("bin/olliesrv.js")) && argv.includes(`unix!${user.socket}`);
    })
    .map(Number)
    .filter(alive);
}

/** The pid of the one olliesrv serving `user`, once it has written its pid file. */
async function daemonPid(user: User): Promise<number> {
  await vi.waitFor(() => expect(existsSync(`${user.socket}.pid`)).toBe(true), { timeout: 10_000 });
  return Number(readFileSync(`${user.socket}.pid`, "utf8"));
}

/** Stops `pid` as a person would (SIGTERM) and waits for its end. */
async function stop(pid: number): Promise<void> {
  if (alive(pid)) process.kill(pid, "SIGTERM");
  await vi.waitFor(() => expect(alive(pid)).toBe(false), { timeout: 20_000, interval: 50 });
}

const started: User[] = [];
afterEach(async () => {
  for (const user of started.splice(0)) for (const pid of daemons(user)) await stop(pid);
});

describe("ollie starting olliesrv", () => {
  it("starts it in the background for the first command that needs it, logging to its own file; the next command uses it", async () => {
    const user = freshUser();
    started.push(user);
    const first = await user.ollie("ls");
    expect(first).toMatchObject({ exitCode: 0, stdout: "", stderr: "" });
    const pid = await daemonPid(user);
    expect(daemons(user)).toEqual([pid]);
    // Its own session and process group, no terminal, stdin from /dev/null, stdout and stderr the log.
    const [, , group, session, tty] = readFileSync(`/proc/${pid}/stat`, "utf8").split(") ")[1]!.split(" ");
    expect([Number(group), Number(session), Number(tty)]).toEqual([pid, pid, 0]);
    expect(readlinkSync(`/proc/${pid}/fd/0`)).toBe("/dev/null");
    expect(readlinkSync(`/proc/${pid}/fd/1`)).toBe(user.logFile);
    expect(readlinkSync(`/proc/${pid}/fd/2`)).toBe(user.logFile);
    expect(statSync(user.logFile).mode & 0o777).toBe(0o600);
    expect(statSync(join(user.logFile, "..")).mode & 0o777).toBe(0o700);
    expect(readFileSync(`/proc/${pid}/cmdline`, "utf8").split("\0")).toContain("15m");

    const made = await user.ollie("new");
    expect(made).toMatchObject({ exitCode: 0, stderr: "" });
    const listed = await user.ollie("ls");
    expect(listed.stdout).toContain(`${made.stdout.trim()}\t`);
    expect(daemons(user)).toEqual([pid]);
    expect(readFileSync(user.logFile, "utf8").match(/ INFO {2}olliesrv: serving on /g)).toHaveLength(1);
  });

  it("starts one olliesrv for two first commands at once, and both are answered", async () => {
    const user = freshUser();
    started.push(user);
    const both = await Promise.all([user.ollie("new"), user.ollie("new")]);
    for (const r of both) expect(r, r.stderr).toMatchObject({ exitCode: 0, stderr: "" });
    expect(daemons(user)).toHaveLength(1);
    expect(readFileSync(user.logFile, "utf8").match(/ INFO {2}olliesrv: serving on /g)).toHaveLength(1);
    const listed = (await user.ollie("ls")).stdout;
    for (const r of both) expect(listed).toContain(`${r.stdout.trim()}\t`);
  });

  it("leaves an idle olliesrv to stop after $OLLIE_IDLE_EXIT; the next command starts another, with the sessions back", async () => {
    const user = freshUser({ OLLIE_IDLE_EXIT: "1s" });
    started.push(user);
    const id = (await user.ollie("new")).stdout.trim();
    const pid = await daemonPid(user);
    await vi.waitFor(() => expect(alive(pid)).toBe(false), { timeout: 20_000, interval: 50 });
    expect(readFileSync(user.logFile, "utf8")).toContain(
      "INFO  olliesrv: no client and no live agent for 1 s: stopping (--idle-exit)",
    );
    expect(existsSync(user.socket)).toBe(false);

    const listed = await user.ollie("ls");
    expect(listed).toMatchObject({ exitCode: 0, stderr: "" });
    expect(listed.stdout).toContain(`${id}\t`);
    const again = await daemonPid(user);
    expect(again).not.toBe(pid);
    await stop(again);

    // --keep-daemon: the one it starts never stops for being idle.
    expect((await user.ollie("--keep-daemon", "ls")).exitCode).toBe(0);
    const kept = await daemonPid(user);
    const argv = readFileSync(`/proc/${kept}/cmdline`, "utf8").split("\0");
    expect(argv[argv.indexOf("--idle-exit") + 1]).toBe("0");
  });

  it("--idle-exit waits while an agent is live: the daemon stops once the agent is parked, and not before", async () => {
    const user = freshUser({ OLLIE_LOG: "debug" });
    expect((await user.ollie("init", "demo")).exitCode).toBe(0);
    const daemon = execa(
      process.execPath,
      [OLLIESRV, "--idle-exit", "1s", "--idle-close", "3", "--print-address"],
      { cwd: user.root, env: user.env, extendEnv: false, reject: false },
    );
    await new Promise((resolve) => daemon.stdout!.once("data", resolve));
    // Held from the moment it serves, from this running process: the daemon cannot be idle before the ask.
    const holding = await connect({ env: user.env });
    const asked = await user.ollie("ask", "--keep", "what is here?");
    holding.close();
    expect(asked.exitCode, asked.stderr).toBe(0);
    const { exitCode, stderr } = await daemon;
    expect(exitCode).toBe(0);
    // The agent, live since its turn, is parked 3 s after it; only then does the daemon's idle second start.
    const parked = stderr.indexOf("live agents: 0");
    const stopping = stderr.indexOf("no client and no live agent for 1 s: stopping (--idle-exit)");
    expect(parked, stderr).toBeGreaterThan(stderr.indexOf("live agents: 1"));
    expect(stopping, stderr).toBeGreaterThan(parked);
  });

  it("ollie acp starts it at the editor's initialize, and its session is an ordinary one", async () => {
    const user = freshUser();
    started.push(user);
    expect((await user.ollie("init", "demo")).exitCode).toBe(0);
    const work = join(user.root, "work");
    const editor = startEditor({ address: `unix!${user.socket}`, env: user.env, work });
    try {
      await editor.connection.agent.request("initialize", { protocolVersion: PROTOCOL_VERSION });
      expect(daemons(user)).toHaveLength(1);
      const { sessionId } = await editor.connection.agent.request("session/new", {
        cwd: work,
        mcpServers: [],
      });
      const answer = await editor.connection.agent.request("session/prompt", {
        sessionId,
        prompt: [{ type: "text", text: "what is here?" }],
      });
      expect(answer).toEqual({ stopReason: "end_turn" });
      expect(editor.of(sessionId, "tool_call")[0]).toMatchObject({ kind: "search", status: "pending" });
      expect((await user.ollie("ls")).stdout).toContain(`${sessionId}\t`);
    } finally {
      expect(await editor.close()).toBe(0);
    }
  });

  it("starts none at another address, inside an agent's tool, with OLLIE_AUTOSTART=0, nor for init and backends", async () => {
    const user = freshUser();
    const elsewhere = `unix!${join(user.root, "elsewhere", "ollie")}`;
    const there = await user.ollie("-a", elsewhere, "ls");
    expect(there.exitCode).toBe(1);
    expect(there.stderr).toBe(
      `ollie: cannot reach olliesrv at ${elsewhere} (nothing answers there, and ollie starts olliesrv only at its own address, unix!${user.socket}); is it running?`,
    );
    const inTool = freshUser({ OLLIE_UNAME: "1-a.main", OLLIE_KEY: "agent-secret" });
    expect((await inTool.ollie("ls")).stderr).toMatch(
      /\(nothing answers there, and an agent's tool starts no olliesrv\)/,
    );
    const service = freshUser({ OLLIE_AUTOSTART: "0" });
    expect((await service.ollie("ls")).stderr).toMatch(
      /\(nothing answers there, and OLLIE_AUTOSTART=0 starts none\)/,
    );
    // backends says what the file holds (Ollama on localhost, here answering or not), from no olliesrv.
    expect((await user.ollie("backends")).stdout).toMatch(/^\* local +ollama /m);
    expect((await user.ollie("init")).exitCode).toBe(0);
    for (const u of [user, inTool, service]) {
      expect(daemons(u)).toEqual([]);
      expect(existsSync(u.logFile)).toBe(false);
    }
  });

  it("says why an olliesrv it started did not serve, quoting the end of its log", async () => {
    const user = freshUser();
    started.push(user);
    const conf = join(user.env.HOME!, ".config", "ollie", "backends.conf");
    mkdirSync(join(conf, ".."), { recursive: true });
    writeFileSync(conf, "[broken]\ntype = telepathy\n");
    const r = await user.ollie("ls");
    expect(r.exitCode).toBe(1);
    expect(r.stderr).toMatch(
      new RegExp(
        `^ollie: olliesrv could not be started: it exited with status 1; its log, ${user.logFile}, ends:\\n {2}\\S+Z ERROR olliesrv: ${conf}:`,
      ),
    );
    expect(daemons(user)).toEqual([]);
  });

  it("runs `ollie run --json` offline from an empty home: init demo, a real tool call, a parseable stream, no session left; the next run uses the same olliesrv", async () => {
    const user = freshUser();
    started.push(user);
    writeFileSync(join(user.root, "work", "notes.txt"), "remember the milk\n");
    expect((await user.ollie("init", "demo")).exitCode).toBe(0);
    const run = async () => {
      const r = await user.ollie("run", "--json", "what is in this directory?");
      expect(r.exitCode, r.stderr).toBe(0);
      return r.stdout
        .split("\n")
        .map((line) => JSON.parse(line) as { type: string } & Record<string, unknown>);
    };
    const lines = await run();
    expect(lines[0]).toMatchObject({ type: "start", version: 1, profile: "coding", kept: false });
    const call = lines.find((l) => l.type === "tool_call")!;
    expect(call).toMatchObject({ name: expect.any(String), id: expect.any(String) });
    // The demo's call ran in the sandbox, in this directory: its result names the file there.
    expect(lines.find((l) => l.type === "tool_result" && l.id === call.id)).toMatchObject({
      error: false,
      output: expect.stringContaining("notes.txt"),
    });
    expect(lines.at(-1)).toMatchObject({ type: "outcome", status: "done", exitStatus: 0, kept: false });
    expect(lines.filter((l) => l.type === "text").length).toBeGreaterThan(1);
    const pid = await daemonPid(user);
    expect((await user.ollie("ls")).stdout).toBe("");

    await run();
    expect(daemons(user)).toEqual([pid]);
    expect((await user.ollie("ls")).stdout).toBe("");
  });
});
