import { existsSync, mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { homedir, tmpdir, userInfo } from "node:os";
import { join } from "node:path";
import { fileURLToPath } from "node:url";
import { MockLlmServer, type MockServerOptions } from "@ollie/backends/testing";
import { type Fsys, hmacAuthenticator, NinepClient, ORDWR } from "@ollie/ninep";
import { execa, type ResultPromise } from "execa";
import { expect, vi } from "vitest";

/** How long a test waits for something to happen before it fails: generous, since machines are busy. */
export const WAIT = { timeout: 10_000, interval: 20 };

export const OLLIESRV = fileURLToPath(new URL("../bin/olliesrv.js", import.meta.url));
export const OLLIE = fileURLToPath(new URL("../bin/ollie.js", import.meta.url));

export interface Ollie {
  root: string;
  work: string;
  address: string;
  mock: MockLlmServer;
  env: Record<string, string>;
  child: ResultPromise;
  log: () => string;
  /** Waits (up to WAIT) until the daemon's log matches `pattern`, and returns the log. */
  logged(pattern: string | RegExp): Promise<string>;
  /** The owner's session (proven with the owner key). */
  fsys: Fsys;
  owner: string;
  /** The owner key file olliesrv made at its first start. */
  keyFile: string;
  /** The owner key itself. */
  ownerKey(): string;
  /** A new connection attached as `uname`, proving `key` (none: no Tauth at all). */
  attachAs(uname: string, key?: string, address?: string): Promise<Fsys>;
  /** Creates a session from a spec and returns its id. */
  create(spec: string): Promise<string>;
  /** Reads a file's whole text. */
  read(path: string): Promise<string>;
  /** The daemon's process id. */
  readonly pid: number;
  /** Starts the daemon again (after stop or kill), same directories. */
  restart(): Promise<void>;
  stop(): Promise<void>;
  /** kill -9, as a crash would. */
  crash(): Promise<void>;
  remove(): Promise<void>;
}

/** The real olliesrv (which starts the real toolsrv) on Unix sockets, with a mock provider as its backend. */
export interface StartOptions {
  /** More olliesrv flags. */
  args?: readonly string[];
  /** Flags for node itself (e.g. --expose-gc). */
  nodeArgs?: readonly string[];
  /** Prepares $XDG_CONFIG_HOME/ollie before the daemon starts (profiles, tools). */
  setup?: (configDir: string) => void;
  /** How the mock provider answers (default: what is enqueued, in order). */
  mock?: MockServerOptions;
  /** More environment for olliesrv (and so its toolsrv). */
  env?: Record<string, string>;
}

export async function startOllie(prefix = "olliesrv-", options: StartOptions = {}): Promise<Ollie> {
  const args = options.args ?? [];
  const root = mkdtempSync(join(tmpdir(), prefix));
  const work = join(root, "work");
  const config = join(root, "config", "ollie");
  mkdirSync(work, { recursive: true });
  mkdirSync(config, { recursive: true });
  mkdirSync(join(root, "tmp"));
  // The models the tests name; the daemon checks a model against its backend's list.
  const models = ["mock-model", "other-model", "big-model"].map((id) => ({ id, contextLength: 32_768 }));
  const mock = await MockLlmServer.start({ models, ...options.mock });
  writeFileSync(
    join(config, "backends.conf"),
    `default = mock\n[mock]\ntype = openai\nurl = ${mock.baseUrl("openai")}\nmodel = mock-model\n[other]\ntype = openai\nurl = ${mock.baseUrl("openai")}\nmodel = other-model\n[down]\ntype = ollama\nurl = http://127.0.0.1:1\nmodel = nothing\n`,
  );
  options.setup?.(config);
  const ns = join(root, "ns");
  const address = `unix!${join(ns, "ollie")}`;
  const env = {
    HOME: root,
    XDG_CONFIG_HOME: join(root, "config"),
    XDG_DATA_HOME: join(root, "data"),
    // The sandbox keeps its launcher in the user's cache, which no test grants tools to write.
    XDG_CACHE_HOME: process.env.XDG_CACHE_HOME || join(homedir(), ".cache"),
    NAMESPACE: ns,
    // The agents' private temporary directories go here too, so removing the test's directory removes them.
    TMPDIR: join(root, "tmp"),
    PATH: process.env.PATH ?? "/usr/bin:/bin",
    // The test starts and stops this daemon itself: an ollie run while it is stopped must not start another.
    OLLIE_AUTOSTART: "0",
    ...options.env,
  };
  let said = "";
  let child!: ResultPromise;
  let client!: NinepClient;
  const clients: NinepClient[] = [];
  const keyFile = join(root, "data", "ollie", "keys", "owner.key");
  const ownerKey = () => readFileSync(keyFile, "utf8").trim();
  const attachAs = async (uname: string, key?: string, at = address) => {
    const c = await NinepClient.dial(at);
    clients.push(c);
    return c.attach({ uname, ...(key !== undefined && { authenticator: hmacAuthenticator(key) }) });
  };
  const o: Ollie = {
    root,
    work,
    address,
    mock,
    env,
    get child() {
      return child;
    },
    log: () => said,
    logged: async (pattern) => {
      await vi.waitFor(() => expect(said).toMatch(pattern), WAIT);
      return said;
    },
    get pid() {
      return child.pid!;
    },
    get fsys() {
      return fsys;
    },
    owner: userInfo().username,
    keyFile,
    ownerKey,
    attachAs,
    create: async (spec) => {
      const f = await fsys.open("session/new", ORDWR);
      await f.write(spec);
      const id = (await f.read(0)).toString().trim();
      await f.close();
      return id;
    },
    read: async (path) => (await fsys.readFile(path)).toString(),
    restart: async () => {
      child = execa(
        process.execPath,
        [...(options.nodeArgs ?? []), OLLIESRV, "-a", address, "--print-address", ...args],
        { env, extendEnv: false, reject: false },
      );
      child.stderr!.on("data", (c: Buffer) => {
        said += c.toString();
      });
      // Ready when it says so on stdout (its sessions restored), whatever its log shows.
      await new Promise<void>((resolve, reject) => {
        child.stdout!.once("data", () => resolve());
        child.then(() => reject(new Error(`olliesrv exited:\n${said}`)));
      });
      client = await NinepClient.dial(address);
      fsys = await client.attach({
        uname: userInfo().username,
        authenticator: hmacAuthenticator(ownerKey()),
      });
    },
    stop: async () => {
      for (const c of clients.splice(0)) c.close();
      client.close();
      child.kill("SIGTERM");
      await child;
    },
    crash: async () => {
      for (const c of clients.splice(0)) c.close();
      client.close();
      child.kill("SIGKILL");
      await child;
      // Its toolsrv sees its stdin close and stops; wait for its socket to go.
      const socket = join(ns, "toolsrv");
      await vi.waitFor(() => expect(existsSync(socket)).toBe(false), WAIT);
    },
    remove: async () => {
      await mock.close();
      rmSync(root, { recursive: true, force: true });
    },
  };
  let fsys!: Fsys;
  await o.restart();
  return o;
}

/**
 * Watches an agent's state from now: `until(want)` waits until the state is `want` and returns every state
 * seen on the way. Open it before the write that starts the turn. A read of `statewait` is kept waiting at
 * olliesrv from the start, each issued as the last returns: a read returns once the state differs from what
 * the file last showed (at first, the state when it was opened), so a read issued only when `until` is
 * called would miss a turn that ended meanwhile, and wait for ever.
 */
export async function watchStates(o: Ollie, agent: string) {
  const f = await o.fsys.open(`${agent}/statewait`);
  const seen: string[] = [];
  let failure: unknown;
  let changed: () => void = () => {};
  let closing = false;
  void (async () => {
    try {
      for (;;) {
        seen.push((await f.read(0)).toString().trim());
        changed();
      }
    } catch (error) {
      if (!closing) failure = error;
      changed();
    }
  })();
  return {
    async until(want: string): Promise<string[]> {
      try {
        for (let looked = 0; ; ) {
          const at = seen.indexOf(want, looked);
          if (at >= 0) return seen.slice(0, at + 1);
          if (failure !== undefined) throw failure;
          looked = seen.length;
          await new Promise<void>((resolve) => {
            changed = resolve;
          });
        }
      } finally {
        closing = true;
        await f.close();
      }
    },
  };
}

/** Writes a prompt and waits for the turn it starts to end; returns the states seen. */
export async function prompt(o: Ollie, agent: string, text: string): Promise<string[]> {
  const states = await watchStates(o, agent);
  await o.fsys.writeFile(`${agent}/prompt`, text);
  return states.until("idle");
}

export const readText = (file: string) => readFileSync(file, "utf8");

/**
 * Waits until the agent has finished `n` turns and is idle. Each wait file is opened before the plain file
 * is read, so a change between the two is not missed (opening takes the value as it is; a read returns once
 * it differs).
 */
export async function untilTurns(o: Ollie, agent: string, n: number): Promise<void> {
  const turns = await o.fsys.open(`${agent}/turnwait`);
  try {
    let done = Number(await o.read(`${agent}/turns`));
    while (done < n) done = Number((await turns.read(0)).toString());
  } finally {
    await turns.close();
  }
  const state = await o.fsys.open(`${agent}/statewait`);
  try {
    let now = (await o.read(`${agent}/state`)).trim();
    while (now !== "idle") now = (await state.read(0)).toString().trim();
  } finally {
    await state.close();
  }
}
