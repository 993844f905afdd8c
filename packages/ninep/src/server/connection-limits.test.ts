import { mkdtempSync, rmSync } from "node:fs";
import { connect, type Socket } from "node:net";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, afterEach, describe, expect, it } from "vitest";
import { eventually } from "../__fixtures__/harness.js";
import { NinepClient } from "../client/client.js";
import { Ramfs } from "../ramfs/ramfs.js";
import { formatAddress } from "../transport/address.js";
import { ConnectionDroppedError, ConnectionRefusedError } from "./connection-errors.js";
import type { ConnectionPeer } from "./connection-peer.js";
import { type ListenOptions, NinepServer, type ServerOptions } from "./server.js";

const dir = mkdtempSync(join(tmpdir(), "ninep-limits-"));
afterAll(() => rmSync(dir, { recursive: true, force: true }));

const servers: NinepServer[] = [];
const sockets: Socket[] = [];
afterEach(async () => {
  for (const s of sockets.splice(0)) s.destroy();
  await Promise.all(servers.splice(0).map((s) => s.close()));
});

/** A server of a Ramfs whose onError errors are collected. */
function server(options: ServerOptions = {}) {
  const errors: Error[] = [];
  const s = new NinepServer(new Ramfs(), { ...options, onError: (e) => errors.push(e) });
  servers.push(s);
  return { server: s, errors };
}

/** A raw connection, kept open until the test ends; `closed()` says whether the server has closed it. */
async function open(target: { path: string } | { port: number; from: string }) {
  const socket =
    "path" in target
      ? connect(target.path)
      : connect({ host: "127.0.0.1", port: target.port, localAddress: target.from });
  sockets.push(socket);
  let closed = false;
  socket.on("close", () => {
    closed = true;
  });
  socket.on("error", () => {});
  await new Promise<void>((resolve) => socket.once("connect", () => resolve()));
  return { socket, closed: () => closed };
}

/** Opens `n` connections one after the other and waits until the server has served or closed each. */
async function openMany(n: number, target: Parameters<typeof open>[0], settled: () => number) {
  const before = settled();
  const conns = [];
  for (let i = 0; i < n; i++) conns.push(await open(target));
  await eventually(() => settled() - before === n);
  return conns;
}

const refusals = (errors: Error[]) =>
  errors.filter((e): e is ConnectionRefusedError => e instanceof ConnectionRefusedError);

describe("connection limits per peer", () => {
  it("hold one TCP address to maxConnectionsPerPeer, and that address keeps no other out", async () => {
    const { server: s, errors } = server({ limits: { maxConnectionsPerPeer: 3 } });
    const listener = await s.listen("tcp!127.0.0.1!0");
    const port = (listener.boundAddress as { port: number }).port;
    const settled = () => s.stats().connections + s.stats().refusedConnections;
    const flood = await openMany(5, { port, from: "127.0.0.2" }, settled);
    await eventually(() => flood.filter((c) => c.closed()).length === 2);
    expect(s.stats()).toMatchObject({ connections: 3, refusedConnections: 2 });
    expect(refusals(errors).map((e) => [e.reason, e.peer, e.message])).toEqual(
      Array(2).fill([
        "peer-full",
        "tcp!127.0.0.2",
        "refused a connection from tcp!127.0.0.2: it holds 3 connections (limits.maxConnectionsPerPeer)",
      ]),
    );
    // Another address is served while the first holds its share.
    const client = await NinepClient.dial(formatAddress(listener.boundAddress));
    expect((await (await client.attach({ uname: "glenda" })).readdir("")).length).toBe(0);
    client.close();
    // A connection that closes gives its place back.
    flood.find((c) => !c.closed())!.socket.destroy();
    await eventually(() => s.stats().connections === 2);
    const again = await open({ port, from: "127.0.0.2" });
    await eventually(() => s.stats().connections === 3);
    expect(again.closed()).toBe(false);
  });

  it("do not count peers nobody names (a Unix socket without `peer`) per peer", async () => {
    const { server: s } = server({ limits: { maxConnectionsPerPeer: 1 } });
    const path = join(dir, "anonymous");
    await s.listen(`unix!${path}`);
    const conns = await openMany(3, { path }, () => s.stats().connections);
    expect(conns.some((c) => c.closed())).toBe(false);
  });
});

/** A Unix listener whose peers are whoever the test says is next: `next.push(peer)` before each connect. */
async function labelled(s: NinepServer, name: string, options: ListenOptions = {}) {
  const next: ConnectionPeer[] = [];
  const path = join(dir, name);
  await s.listen(`unix!${path}`, {
    ...options,
    peer: async () => {
      const peer = next.shift();
      if (!peer) throw new Error("nobody said who this is");
      return peer;
    },
  });
  return { path, next };
}

describe("the owner's reserve", () => {
  it("lets the owner in however many connections others hold, and no further than the reserve", async () => {
    const { server: s, errors } = server({ limits: { maxConnections: 4, reservedConnections: 2 } });
    const { path, next } = await labelled(s, "reserve");
    const settled = () => s.stats().connections + s.stats().refusedConnections;
    next.push(...[1, 2, 3, 4, 5].map((n) => ({ key: `uid ${1000 + n}` })));
    const others = await openMany(5, { path }, settled);
    await eventually(() => others.filter((c) => c.closed()).length === 1);
    expect(refusals(errors).map((e) => e.message)).toEqual([
      "refused a connection from uid 1005: 4 connections are open (limits.maxConnections)",
    ]);
    next.push({ key: "uid 0", owner: true }, { key: "uid 0", owner: true }, { key: "uid 0", owner: true });
    const owners = await openMany(3, { path }, settled);
    await eventually(() => owners.filter((c) => c.closed()).length === 1);
    expect(owners[0]!.closed() || owners[1]!.closed()).toBe(false);
    expect(s.stats().connections).toBe(6);
    expect(refusals(errors).at(-1)).toMatchObject({
      reason: "server-full",
      peer: "uid 0",
      message:
        "refused a connection from uid 0: 6 connections are open, the owner's reserve too (limits.maxConnections, limits.reservedConnections)",
    });
  });

  it("holds the owner to no per-peer limit, others to theirs", async () => {
    const { server: s } = server({ limits: { maxConnectionsPerPeer: 2 } });
    const { path, next } = await labelled(s, "per-peer");
    const settled = () => s.stats().connections + s.stats().refusedConnections;
    next.push(...Array(4).fill({ key: "uid 0", owner: true }), ...Array(4).fill({ key: "uid 1000" }));
    const conns = await openMany(8, { path }, settled);
    await eventually(() => conns.filter((c) => c.closed()).length === 2);
    expect(conns.slice(0, 4).some((c) => c.closed())).toBe(false);
    expect(s.stats()).toMatchObject({ connections: 6, refusedConnections: 2 });
  });
});

describe("a listener's own limit", () => {
  it("closes a connection past the listener's maxConnections, and leaves other listeners alone", async () => {
    const { server: s, errors } = server();
    const small = join(dir, "small");
    const large = join(dir, "large");
    await s.listen(`unix!${small}`, { maxConnections: 2 });
    await s.listen(`unix!${large}`);
    const settled = () => s.stats().connections + s.stats().refusedConnections;
    const onSmall = await openMany(3, { path: small }, settled);
    await eventually(() => onSmall.filter((c) => c.closed()).length === 1);
    const onLarge = await openMany(3, { path: large }, settled);
    expect(onLarge.some((c) => c.closed())).toBe(false);
    expect(refusals(errors).map((e) => [e.reason, e.message])).toEqual([
      [
        "listener-full",
        `refused a connection from unix: 2 connections are open on unix!${small} (its maxConnections)`,
      ],
    ]);
  });
});

describe("a peer that cannot be told", () => {
  it("is refused, its connection closed unanswered, onError told why", async () => {
    const { server: s, errors } = server();
    const { path } = await labelled(s, "untold");
    const conn = await open({ path });
    await eventually(() => conn.closed());
    expect(refusals(errors).map((e) => [e.reason, e.message])).toEqual([
      ["unidentified", "refused a connection from unix: nobody said who this is"],
    ]);
  });
});

describe("a frame larger than the connection may send yet", () => {
  it("ends the connection before Tversion as soon as its size is read: its body is never taken", async () => {
    const { server: s, errors } = server();
    const path = join(dir, "big-first");
    const listener = await s.listen(`unix!${path}`);
    const accepted = new Promise<Socket>((resolve) => listener.server.once("connection", resolve));
    const { socket, closed } = await open({ path });
    // A Tversion header announcing 1 MiB, then more than any socket buffer holds.
    const bytes = Buffer.alloc(16 << 20);
    bytes.writeUInt32LE(1 << 20, 0);
    bytes[4] = 100;
    socket.write(bytes);
    await eventually(() => closed());
    expect(errors).toHaveLength(1);
    expect(errors[0]).toBeInstanceOf(ConnectionDroppedError);
    expect(errors[0]!.message).toBe(
      "unix: message size 1048576 exceeds maxMessageBeforeVersion 8192; connection closed",
    );
    // What the server read of it: a read or two, not the 16 MiB it was sent.
    expect((await accepted).bytesRead).toBeLessThan(1 << 20);
  });
});
