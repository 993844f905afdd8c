import { chmodSync, copyFileSync, mkdirSync, readFileSync, writeFileSync } from "node:fs";
import { connect } from "node:net";
import { join } from "node:path";
import { createInterface } from "node:readline";
import { fileURLToPath } from "node:url";
import { type Fsys, hmacAuthenticator, NinepClient } from "@ollie/ninep";
import { execa } from "execa";
import { afterAll, afterEach, beforeAll, describe, expect, it, vi } from "vitest";
import { type Ollie, prompt, startOllie } from "./harness.js";

// Another user's connections, made by a process that really runs as that user (nobody), which only root
// can start: as CI and this repository's machines run the tests.
const ROOT = process.getuid!() === 0;
if (!ROOT) console.warn("not root: the tests of another user's connections are skipped");

const FLOOD = fileURLToPath(new URL("./fixtures/flood.mjs", import.meta.url));
const NOBODY = 65534;

/** A stranger (uid 65534) flooding ADDRESS: see fixtures/flood.mjs. */
function flood(address: string, count: number, rounds: number) {
  const child = execa(
    "setpriv",
    [
      `--reuid=${NOBODY}`,
      `--regid=${NOBODY}`,
      "--clear-groups",
      process.execPath,
      FLOOD,
      address,
      `${count}`,
      `${rounds}`,
    ],
    { stdin: "pipe", stdout: "pipe", reject: false },
  );
  const lines = createInterface({ input: child.stdout! })[Symbol.asyncIterator]();
  return {
    async status(): Promise<{
      opened: number;
      open: number;
      closedByServer: number;
      failed: number;
      settled: boolean;
    }> {
      child.stdin!.write("?\n");
      return JSON.parse((await lines.next()).value as string);
    },
    async stop() {
      child.stdin!.end();
      await child;
    },
  };
}

type Flood = ReturnType<typeof flood>;
const floods: Flood[] = [];
afterEach(async () => {
  await Promise.all(floods.splice(0).map((f) => f.stop()));
});

/** Lets another user reach the daemon's Unix socket (never its mount socket, which stays 0600). */
function openToOthers(o: Ollie): string {
  const path = o.address.replace(/^unix!/, "");
  chmodSync(o.root, 0o711);
  chmodSync(join(o.root, "ns"), 0o711);
  chmodSync(path, 0o666);
  return path;
}

/** What the owner does to see it is served: lists the sessions, as `ninep ls session` does. */
async function ownerLists(o: Ollie, via: "socket" | "mount"): Promise<string[]> {
  const client =
    via === "socket"
      ? await NinepClient.dial(o.address)
      : await NinepClient.dial(`${o.address}.mount`, { dialect: "9P2000.L" });
  try {
    const fsys: Fsys =
      via === "socket"
        ? await client.attach({ uname: o.owner, authenticator: hmacAuthenticator(o.ownerKey()) })
        : await client.attach({ uname: "", nUname: process.getuid!() });
    return (await fsys.readdir("session")).map((st) => st.name);
  } finally {
    client.close();
  }
}

const connections = async (o: Ollie) => Number(/^connections (\d+)$/m.exec(await o.read("stats"))![1]);

/** The TCP address olliesrv says it listens on (`--tcp 0` picks a free port). */
async function tcpAddress(o: Ollie): Promise<string> {
  const log = await o.logged(/serving on tcp!127\.0\.0\.1!(\d+) \(authenticated/);
  return `127.0.0.1:${/serving on tcp!127\.0\.0\.1!(\d+) \(authenticated/.exec(log)![1]}`;
}

describe.skipIf(!ROOT)("another user's connections, with the default limits", () => {
  let o: Ollie;
  beforeAll(async () => {
    o = await startOllie("olliesrv-limits-", { args: ["--tcp", "0", "--attach-deadline", "2"] });
  });
  afterAll(async () => {
    await o?.stop();
    await o?.remove();
  });

  it("1,100 on TCP and 1,100 on the Unix socket, each coming back when closed, leave the owner served on the Unix and mount sockets", async () => {
    const tcp = await tcpAddress(o);
    const path = openToOthers(o);
    const started = Date.now();
    const onTcp = flood(tcp, 1100, 3);
    const onUnix = flood(path, 1100, 3);
    floods.push(onTcp, onUnix);
    // Every connection has been tried, and each peer holds its share: 128 (--max-peer-connections).
    await vi.waitFor(
      async () => {
        const [t, u] = [await onTcp.status(), await onUnix.status()];
        expect(t.opened).toBeGreaterThanOrEqual(1100);
        expect(u.opened).toBeGreaterThanOrEqual(1100);
        expect(t.open + u.open).toBeGreaterThanOrEqual(256);
      },
      { timeout: 30_000, interval: 100 },
    );
    // While they are held, and come back each time the attach deadline closes them, until every connection
    // has used its three rounds: the owner is served every time, and the stranger never holds more than its
    // share on each socket. (The owner's own connections are the harness's and the one reading stats.)
    const settled = async () => (await onTcp.status()).settled && (await onUnix.status()).settled;
    const deadlineMet = () =>
      [`uid ${NOBODY}`, "tcp!127.0.0.1"].every((peer) =>
        o.log().includes(`WARN  olliesrv[9p]: ${peer}: no attach within 2 s; connection closed`),
      );
    for (let i = 0; !(deadlineMet() && (await settled())); i++) {
      expect(i, "the floods settle").toBeLessThan(600);
      expect(await ownerLists(o, "socket")).toContain("idx");
      expect(await ownerLists(o, "mount")).toContain("idx");
      expect(await connections(o)).toBeLessThanOrEqual(2 * 128 + 2);
      await new Promise((resolve) => setTimeout(resolve, 100));
    }
    // Refused connections came back: more than the 1,100 were opened on each.
    const [t, u] = [await onTcp.status(), await onUnix.status()];
    expect(t.opened).toBeGreaterThan(2 * 1100);
    expect(u.opened).toBeGreaterThan(2 * 1100);

    // Each refusal names the peer and the limit; the log holds a few per peer in each 10 s, not thousands.
    const log = o.log();
    expect(log).toContain(
      "WARN  olliesrv[audit]: refused a connection from tcp!127.0.0.1: it holds 128 connections (limits.maxConnectionsPerPeer)",
    );
    expect(log).toContain(
      `WARN  olliesrv[audit]: refused a connection from uid ${NOBODY}: it holds 128 connections (limits.maxConnectionsPerPeer)`,
    );
    const windows = Math.ceil((Date.now() - started) / 10_000) + 1;
    for (const source of ["tcp!127.0.0.1", `uid ${NOBODY}`]) {
      const lines = log.split("\n").filter((l) => l.includes(`refused a connection from ${source}:`));
      expect(lines.length).toBeGreaterThan(0);
      expect(lines.length).toBeLessThanOrEqual(20 * windows);
    }
  });
});

describe.skipIf(!ROOT)("the owner's reserve", () => {
  let o: Ollie;
  beforeAll(async () => {
    // No per-peer or per-listener limit stands in the way: the stranger can take every place there is.
    o = await startOllie("olliesrv-reserve-", {
      args: ["--max-connections", "300", "--max-peer-connections", "5000", "--attach-deadline", "0"],
    });
  });
  afterAll(async () => {
    await o?.stop();
    await o?.remove();
  });

  it("keeps the owner served on the Unix and mount sockets when another user holds every other place", async () => {
    const onUnix = flood(openToOthers(o), 400, 3);
    floods.push(onUnix);
    // The stranger holds every place but the one the harness's owner connection has, and is refused more.
    await vi.waitFor(
      async () => {
        expect((await onUnix.status()).settled).toBe(true);
        expect(await connections(o)).toBe(300);
      },
      { timeout: 30_000, interval: 100 },
    );
    expect(await ownerLists(o, "socket")).toContain("idx");
    expect(await ownerLists(o, "mount")).toContain("idx");
    expect(o.log()).toContain(
      `WARN  olliesrv[audit]: refused a connection from uid ${NOBODY}: 300 connections are open (limits.maxConnections)`,
    );
  });
});

const HOLD = fileURLToPath(new URL("./fixtures/hold-connections.mjs", import.meta.url));

describe("an agent's tools", () => {
  let o: Ollie;
  beforeAll(async () => {
    o = await startOllie("olliesrv-tools-", {
      setup: (config) => {
        mkdirSync(join(config, "tools"), { recursive: true });
        copyFileSync(HOLD, join(config, "tools", "hold_connections"));
        chmodSync(join(config, "tools", "hold_connections"), 0o755);
        mkdirSync(join(config, "agents"), { recursive: true });
        writeFileSync(
          join(config, "agents", "holder.json"),
          JSON.stringify({ prompt: ["echo You hold."], autoLoad: ["hold_connections"] }),
        );
      },
    });
  });
  afterAll(async () => {
    await o?.stop();
    await o?.remove();
  });

  it("run as the owner's user but are not the owner: together they hold no more than one peer's share", async () => {
    const id = await o.create(`agent=holder cwd=${o.work}`);
    const agent = `session/${id}/agent/main`;
    o.mock.enqueue(
      { toolCalls: [{ name: "hold_connections", arguments: { count: 200 } }] },
      { text: "Held." },
    );
    await prompt(o, agent, "hold");
    const history = JSON.parse(await o.read(`${agent}/context`)) as Array<{ role: string; content: string }>;
    expect(history.findLast((m) => m.role === "tool")!.content.trim()).toBe("admitted 128 refused 72");
    const me = process.getuid!();
    expect(o.log()).toContain(
      `WARN  olliesrv[audit]: refused a connection from uid ${me} sandboxed: it holds 128 connections (limits.maxConnectionsPerPeer)`,
    );
    expect(await ownerLists(o, "socket")).toContain("idx");
  });
});

const rssKiB = (pid: number) =>
  Number(/VmRSS:\s+(\d+)/.exec(readFileSync(`/proc/${pid}/status`, "utf8"))![1]);

describe("half-sent frames before Tversion", () => {
  let o: Ollie;
  beforeAll(async () => {
    o = await startOllie("olliesrv-frames-", { args: ["--tcp", "0"] });
  });
  afterAll(async () => {
    await o?.stop();
    await o?.remove();
  });

  it("300 announcing 1 MiB and sending most of it add less than 64 MiB to olliesrv, on every listener", async () => {
    const [host, port] = (await tcpAddress(o)).split(":") as [string, string];
    const targets = {
      socket: { path: o.address.replace(/^unix!/, "") },
      mount: { path: `${o.address.replace(/^unix!/, "")}.mount` },
      tcp: { host, port: Number(port) },
    };
    // A Tversion header announcing 1 MiB, and all of that MiB but its last 4 KiB.
    const frame = Buffer.alloc((1 << 20) - 4096);
    frame.writeUInt32LE(1 << 20, 0);
    frame[4] = 100;
    frame.writeUInt16LE(0xffff, 5);
    const started = Date.now();
    const grown: Record<string, number> = {};
    for (const [name, target] of Object.entries(targets)) {
      const before = rssKiB(o.pid);
      let peak = before;
      const sample = setInterval(() => {
        peak = Math.max(peak, rssKiB(o.pid));
      }, 10);
      const closed = Array.from({ length: 300 }, async () => {
        const socket = connect(target as { path: string });
        socket.on("error", () => {});
        socket.on("connect", () => socket.write(frame));
        await new Promise<void>((resolve) => socket.once("close", () => resolve()));
      });
      // Every one is closed by olliesrv, none of it having been taken whole.
      await Promise.all(closed);
      clearInterval(sample);
      peak = Math.max(peak, rssKiB(o.pid));
      grown[name] = peak - before;
    }
    console.log(
      `olliesrv's RSS grew by ${Object.entries(grown)
        .map(([name, kib]) => `${(kib / 1024).toFixed(1)} MiB on the ${name}`)
        .join(", ")} for 300 half-sent 1 MiB frames each`,
    );
    for (const kib of Object.values(grown)) expect(kib).toBeLessThan(64 * 1024);
    // And the daemon says why, at most 20 lines per peer (the owner's user, the TCP address) in 10 s, not 900.
    expect(o.log()).toContain(
      `WARN  olliesrv[9p]: uid ${process.getuid!()}: message size 1048576 exceeds maxMessageBeforeVersion 8192; connection closed`,
    );
    const windows = Math.ceil((Date.now() - started) / 10_000) + 1;
    const lines = o
      .log()
      .split("\n")
      .filter((l) => l.includes("exceeds maxMessageBeforeVersion"));
    expect(lines.length).toBeLessThanOrEqual(2 * 20 * windows);
    expect(await ownerLists(o, "socket")).toContain("idx");
  });
});
