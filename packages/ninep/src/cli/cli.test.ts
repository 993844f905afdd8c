import { mkdirSync, mkdtempSync, rmSync, statSync, writeFileSync } from "node:fs";
import { createServer } from "node:net";
import { tmpdir, userInfo } from "node:os";
import { dirname, join } from "node:path";
import { fileURLToPath } from "node:url";
import { execa, type ResultPromise } from "execa";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { hmacAuth } from "../auth/hmac.js";
import { DM, NOTAG, QT } from "../codec/constants.js";
import { decodeMessage } from "../codec/decode.js";
import { encodeMessage } from "../codec/encode.js";
import type { Qid, Stat, Tversion } from "../codec/types.js";
import { Ramfs } from "../ramfs/ramfs.js";
import type { Fid, FileServer, ReadRequest } from "../server/file-server.js";
import { NinepServer } from "../server/server.js";

const bin = fileURLToPath(new URL("../../bin/ninep.js", import.meta.url));
const dir = mkdtempSync(join(tmpdir(), "ninep-cli-"));
// $USER names someone else: the uname is the account's, which is what a key file belongs to.
const env = { NAMESPACE: join(dir, "ns"), USER: "glenda" };
const me = userInfo().username;
let ramfs: ResultPromise;

const ninep = (args: string[], input?: string) =>
  execa(process.execPath, [bin, ...args], { env, input, reject: false });

/** Starts `ninep ramfs` with `args` and waits until it says it is serving. (The process is wrapped: it is a
 * promise itself, which an async function would otherwise wait for.) */
async function startRamfs(args: string[]): Promise<{ child: ResultPromise }> {
  const child = execa(process.execPath, [bin, "ramfs", ...args], { env, reject: false });
  let said = "";
  await new Promise<void>((resolve, reject) => {
    child.stderr!.on("data", (chunk: Buffer) => {
      said += chunk.toString();
      if (said.includes("serving on")) resolve();
    });
    child.then(() => reject(new Error(`ninep ramfs exited: ${said}`)));
  });
  return { child };
}

beforeAll(async () => {
  ramfs = (await startRamfs([])).child;
});

afterAll(async () => {
  ramfs.kill("SIGTERM");
  await ramfs;
  rmSync(dir, { recursive: true, force: true });
});

describe("ninep command with ninep ramfs", () => {
  it("creates, writes, reads back, lists, stats and removes from a shell", async () => {
    expect((await ninep(["create", "-d", "ramfs/notes"])).exitCode).toBe(0);
    expect((await ninep(["create", "ramfs/notes/todo"])).exitCode).toBe(0);
    expect((await ninep(["write", "ramfs/notes/todo"], "buy milk\nfix 9p\n")).exitCode).toBe(0);
    expect((await ninep(["read", "ramfs/notes/todo"])).stdout).toBe("buy milk\nfix 9p");

    const ls = await ninep(["ls", "-l", "ramfs/notes"]);
    expect(ls.stdout).toMatch(new RegExp(`^--rw-r--r-- ${me} ${me} 16 \\w{3} [ \\d]\\d \\d\\d:\\d\\d todo$`));
    expect((await ninep(["ls", "ramfs/"])).stdout).toBe("notes");
    expect((await ninep(["ls", "-ld", "ramfs/notes"])).stdout).toMatch(
      new RegExp(`^d-rwxr-xr-x ${me} ${me} 0 .* notes$`),
    );

    const stat = await ninep(["stat", "ramfs/notes/todo"]);
    expect(stat.stdout).toMatch(
      new RegExp(
        `^\\('todo' '${me}' '${me}' '${me}' q \\(\\d+ \\d+\\) m 0644 at \\d+ mt \\d+ l 16 t 0 d 0\\)$`,
      ),
    );

    const rm = await ninep(["rm", "ramfs/notes/todo", "ramfs/notes/nothing"]);
    expect(rm.exitCode).toBe(1);
    expect(rm.stderr).toBe("ninep: ramfs/notes/nothing: 'nothing' file not found");
    expect((await ninep(["ls", "ramfs/notes"])).stdout).toBe("");
  });

  it("writes line by line with -l, reads the answer back with -r, and talks to a file with rdwr", async () => {
    await ninep(["create", "ramfs/lines"]);
    await ninep(["write", "-l", "ramfs/lines"], "a\nb\n");
    expect((await ninep(["read", "ramfs/lines"])).stdout).toBe("a\nb");
    const rdwr = await ninep(["rdwr", "ramfs/lines"], "xyz\n");
    expect(rdwr.stdout).toBe("a\nb\nxyz");
    expect(rdwr.stderr).toBe("");
    await ninep(["create", "ramfs/answer"]);
    const written = await ninep(["write", "-r", "ramfs/answer"], "two\nlines\n");
    expect(written).toMatchObject({ exitCode: 0, stdout: "two\nlines", stderr: "" });
  });

  it("reaches a server by -a address, and reports errors with a non-zero status", async () => {
    const address = `unix!${env.NAMESPACE}/ramfs`;
    await ninep(["-a", address, "create", "/viaaddr"]);
    expect((await ninep(["-a", address, "ls", "/"])).stdout).toContain("viaaddr");
    const missing = await ninep(["read", "ramfs/absent"]);
    expect(missing.exitCode).toBe(1);
    expect(missing.stderr).toBe("ninep: ramfs/absent: 'absent' file not found");
    const noServer = await ninep(["read", "nothere/x"]);
    expect(noServer.exitCode).toBe(1);
    expect(noServer.stderr).toMatch(/^ninep: nothere\/x: dial .*nothere: .*ENOENT/);
    const usage = await ninep(["frobnicate"]);
    expect(usage.exitCode).toBe(2);
    expect(usage.stderr).toMatch(/unknown command 'frobnicate'\nusage: ninep/);
  });

  it("attaches the root by the aname '/' as by '', and names an aname it does not serve", async () => {
    await ninep(["create", "ramfs/by-aname"]);
    expect((await ninep(["-A", "/", "ls", "ramfs/"])).stdout).toContain("by-aname");
    const unknown = await ninep(["-A", "/srv/other", "ls", "ramfs/"]);
    expect(unknown).toMatchObject({
      exitCode: 1,
      stderr: `ninep: ramfs/: unix!${env.NAMESPACE}/ramfs refused to attach "${me}": no tree named '/srv/other': this server has one, attached as '' or '/'`,
    });
  });

  it("stops on SIGTERM and removes its socket", async () => {
    const address = join(dir, "other.sock");
    const { child: other } = await startRamfs(["-a", address]);
    expect(statSync(address).isSocket()).toBe(true);
    other.kill("SIGTERM");
    expect((await other).exitCode).toBe(0);
    expect(() => statSync(address)).toThrow(/ENOENT/);
  });

  it("does the same in 9P2000.L (-L) as in 9P2000, byte for byte, on the same tree", async () => {
    const run = async (dialect: string[], dir: string) => {
      const say = (args: string[], input?: string) => ninep([...dialect, ...args], input);
      expect((await say(["create", "-d", `ramfs/${dir}`])).exitCode).toBe(0);
      expect((await say(["create", "-m", "0600", `ramfs/${dir}/f`])).exitCode).toBe(0);
      expect((await say(["write", `ramfs/${dir}/f`], "line one\nline two\n")).exitCode).toBe(0);
      const read = await say(["read", `ramfs/${dir}/f`]);
      const list = await say(["ls", `ramfs/${dir}`]);
      const missing = await say(["read", `ramfs/${dir}/nope`]);
      expect((await say(["rm", `ramfs/${dir}/f`, `ramfs/${dir}`])).exitCode).toBe(0);
      return { read: read.stdout, list: list.stdout, missing: missing.exitCode };
    };
    const plain = await run([], "plain");
    const linux = await run(["-L"], "linux");
    expect(linux).toEqual(plain);
    expect(plain).toEqual({ read: "line one\nline two", list: "f", missing: 1 });
    const traced = await ninep(["-L", "-D", "ls", "ramfs/"]);
    expect(traced.stderr).toMatch(/<- Rversion .* version '9P2000\.L'/);
    expect(traced.stderr).toMatch(/-> Tlopen .*\n(.*\n)*-> Treaddir /);
  });
});

/** A one-file server whose `log` blocks readers at its end until more is appended. */
class LogFs implements FileServer<string> {
  data = Buffer.alloc(0);
  private waiters: Array<() => void> = [];
  private readonly qids: Record<string, Qid> = {
    "/": { type: QT.DIR, version: 0, path: 0n },
    log: { type: 0, version: 0, path: 1n },
  };

  append(text: string) {
    this.data = Buffer.concat([this.data, Buffer.from(text)]);
    for (const w of this.waiters.splice(0)) w();
  }
  attach({ fid }: { fid: Fid<string> }) {
    fid.aux = "/";
    return this.qids["/"]!;
  }
  walk({ newFid, names }: { newFid: Fid<string>; names: string[] }) {
    if (names.length === 0) return [];
    if (names[0] !== "log") throw new Error("file not found");
    newFid.aux = "log";
    return [this.qids.log!];
  }
  open() {
    return undefined;
  }
  async read({ offset, count, signal }: ReadRequest<string>) {
    while (Number(offset) >= this.data.length) {
      await new Promise<void>((resolve, reject) => {
        signal.throwIfAborted();
        this.waiters.push(resolve);
        signal.addEventListener("abort", () => reject(signal.reason));
      });
    }
    return this.data.subarray(Number(offset), Number(offset) + count);
  }
  readdir(): Stat[] {
    return [];
  }
  stat({ fid }: { fid: Fid<string> }): Stat {
    const qid = this.qids[fid.aux]!;
    return {
      type: 0,
      dev: 0,
      qid,
      mode: qid.type & QT.DIR ? (DM.DIR | 0o555) >>> 0 : 0o444,
      atime: 0,
      mtime: 0,
      length: 0n,
      name: fid.aux,
      uid: "log",
      gid: "log",
      muid: "log",
    };
  }
}

describe("ninep read on a file that blocks", () => {
  it("keeps streaming what is appended, like tail -f", async () => {
    const fs = new LogFs();
    const server = new NinepServer(fs);
    const path = join(dir, "log.sock");
    await server.listen(path);
    fs.append("first\n");
    const reader = execa(process.execPath, [bin, "-a", path, "read", "log"], { env, reject: false });
    const seen: string[] = [];
    let onData = () => {};
    reader.stdout!.on("data", (c: Buffer) => {
      seen.push(c.toString());
      onData();
    });
    const arrived = (text: string) =>
      new Promise<void>((resolve) => {
        onData = () => seen.join("").includes(text) && resolve();
        onData();
      });
    await arrived("first\n");
    fs.append("second\n");
    await arrived("second\n");
    reader.kill("SIGTERM");
    await reader;
    expect(seen.join("")).toBe("first\nsecond\n");
    await server.close();
  });
});

describe("ninep on a server that requires authentication", () => {
  it("proves the uname with -k, and exits at once with the reason when refused, naming whose key it holds", async () => {
    const keyFile = join(dir, "glenda.key");
    writeFileSync(keyFile, "glenda's secret\n");
    const auth = hmacAuth({
      keyFor: (u) => (u === me ? Buffer.from("glenda's secret") : undefined),
      knownUnames: () => [me],
    });
    const server = new NinepServer(new Ramfs(), { auth });
    const path = join(dir, "auth.sock");
    await server.listen(path);
    const proven = await ninep(["-a", path, "-k", keyFile, "ls", "/"]);
    expect(proven).toMatchObject({ exitCode: 0, stderr: "" });
    const refused = await ninep(["-a", path, "ls", "/"]);
    expect(refused.exitCode).toBe(1);
    expect(refused.stderr).toContain("authentication required");
    const wrong = await ninep(["-a", path, "-u", "mallory", "-k", keyFile, "ls", "/"]);
    expect(wrong.stderr).toBe(
      `ninep: /: unix!${path} refused to attach "mallory": authentication failed: the key proves "${me}", but the attach claimed "mallory"`,
    );
    await server.close();
  });

  it("proves the account's uname with a service's owner key ($XDG_DATA_HOME/NAME/keys/owner.key) without -k", async () => {
    const data = join(dir, "data");
    const keyed = { ...env, XDG_DATA_HOME: data };
    const auth = hmacAuth({
      keyFor: (u) => (u === me ? Buffer.from("the owner's secret") : undefined),
      knownUnames: () => [me],
    });
    const server = new NinepServer(new Ramfs(), { auth });
    await server.listen(join(env.NAMESPACE, "keyed"));
    const run = (args: string[], e: Record<string, string>) =>
      execa(process.execPath, [bin, ...args], { env: e, reject: false });
    const path = join(data, "keyed", "keys", "owner.key");
    const none = await run(["ls", "keyed/"], keyed);
    expect(none.exitCode).toBe(1);
    expect(none.stderr).toContain(`authentication required (no key: none at ${path}, -k names one)`);

    mkdirSync(dirname(path), { recursive: true });
    writeFileSync(path, "the owner's secret\n");
    expect(await run(["ls", "keyed/"], keyed)).toMatchObject({ exitCode: 0, stderr: "" });
    // -a naming the same socket finds it too; a socket outside the namespace directory has no owner key.
    const socket = join(env.NAMESPACE, "keyed");
    expect(await run(["-a", `unix!${socket}`, "ls", "/"], keyed)).toMatchObject({ exitCode: 0, stderr: "" });
    const wrong = await run(["-u", "mallory", "ls", "keyed/"], keyed);
    expect(wrong.stderr).toContain(`authentication failed: the key proves "${me}"`);
    expect(wrong.stderr).toContain(`(proven with ${path})`);
    // HOME stands in for an unset XDG_DATA_HOME, as the XDG rule says.
    const home = join(dir, "home");
    mkdirSync(join(home, ".local", "share", "keyed", "keys"), { recursive: true });
    writeFileSync(join(home, ".local", "share", "keyed", "keys", "owner.key"), "the owner's secret");
    expect(await run(["ls", "keyed/"], { ...env, HOME: home, XDG_DATA_HOME: "" })).toMatchObject({
      exitCode: 0,
      stderr: "",
    });
    await server.close();
  });
});

describe("ninep on a server that does not speak the dialect asked for", () => {
  it("says that a server of 9P2000 alone refused 9P2000.L, and suggests going without -L", async () => {
    // A strict 9P2000 server, as version(5) allows one to be: any other version is 'unknown'.
    const path = join(dir, "plain-only.sock");
    const server = createServer((socket) => {
      let received = Buffer.alloc(0);
      socket.on("data", (chunk: Buffer) => {
        received = Buffer.concat([received, chunk]);
        if (received.length < 4 || received.length < received.readUInt32LE(0)) return;
        const asked = decodeMessage(received) as Tversion;
        const version = asked.version === "9P2000" ? "9P2000" : "unknown";
        socket.end(encodeMessage({ type: "Rversion", tag: NOTAG, msize: asked.msize, version }));
      });
    });
    await new Promise<void>((resolve) => server.listen(path, resolve));
    const refused = await ninep(["-L", "-a", path, "ls", "/"]);
    expect(refused).toMatchObject({
      exitCode: 1,
      stderr: `ninep: /: unix!${path}: the server refused 9P2000.L (it answered version 'unknown'): it may speak only 9P2000 (try without -L)`,
    });
    await new Promise((resolve) => server.close(resolve));
  });
});
