import { spawnSync } from "node:child_process";
import { mkdtempSync, rmSync, statSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterEach, describe, expect, it } from "vitest";
import { NinepClient } from "../client/client.js";
import { Ramfs } from "../ramfs/ramfs.js";
import { NinepServer } from "../server/server.js";
import { AddressError, namespaceDir, parseAddress, serviceAddress } from "./address.js";

let dir = "";
afterEach(() => {
  if (dir) rmSync(dir, { recursive: true, force: true });
  dir = "";
});

describe("addresses", () => {
  it("parses plan9port's dial strings", () => {
    expect(parseAddress("unix!/tmp/ns/ollie")).toEqual({ kind: "unix", path: "/tmp/ns/ollie" });
    expect(parseAddress("/tmp/ns/ollie")).toEqual({ kind: "unix", path: "/tmp/ns/ollie" });
    expect(parseAddress("tcp!localhost!564")).toEqual({ kind: "tcp", host: "localhost", port: 564 });
    expect(parseAddress("tcp!*!5640")).toEqual({ kind: "tcp", host: "*", port: 5640 });
    expect(() => parseAddress("tcp!host!port")).toThrow(AddressError);
    expect(() => parseAddress("ollie")).toThrow(/neither/);
    expect(() => parseAddress("udp!a!1")).toThrow(AddressError);
  });

  it("finds the namespace directory as plan9port does", () => {
    expect(namespaceDir({ NAMESPACE: "/run/ns" })).toBe("/run/ns");
    expect(namespaceDir({ USER: "glenda" })).toBe("/tmp/ns.glenda.:0");
    expect(namespaceDir({ USER: "glenda", DISPLAY: "localhost:10.0" })).toBe("/tmp/ns.glenda.localhost:10");
    expect(namespaceDir({ USER: "glenda", DISPLAY: "/private/tmp/x:0" })).toBe(
      "/tmp/ns.glenda._private_tmp_x:0",
    );
    expect(serviceAddress("ollie", { NAMESPACE: "/run/ns" })).toEqual({
      kind: "unix",
      path: "/run/ns/ollie",
    });
  });
});

describe("Unix socket listeners", () => {
  it("create a missing parent directory with mode 0700 and remove the socket on close", async () => {
    dir = mkdtempSync(join(tmpdir(), "ninep-listen-"));
    const path = join(dir, "ns", "ramfs");
    const server = new NinepServer(new Ramfs());
    await server.listen(`unix!${path}`);
    expect(statSync(join(dir, "ns")).mode & 0o777).toBe(0o700);
    expect(statSync(path).isSocket()).toBe(true);
    await server.close();
    expect(() => statSync(path)).toThrow(/ENOENT/);
  });

  it("replace a stale socket nobody listens on", async () => {
    dir = mkdtempSync(join(tmpdir(), "ninep-listen-"));
    const path = join(dir, "srv");
    // A server that dies without cleaning up leaves its socket file behind.
    const crashed = spawnSync(process.execPath, [
      "-e",
      `require("net").createServer().listen(${JSON.stringify(path)}, () => process.kill(process.pid, "SIGKILL"))`,
    ]);
    expect(crashed.signal).toBe("SIGKILL");
    expect(statSync(path).isSocket()).toBe(true);
    const server = new NinepServer(new Ramfs());
    await server.listen(path);
    const client = await NinepClient.dial(path);
    await client.attach({ uname: "glenda" });
    client.close();
    await server.close();
  });

  it("refuse to take over a socket another server listens on, or a file that is not a socket", async () => {
    dir = mkdtempSync(join(tmpdir(), "ninep-listen-"));
    const path = join(dir, "srv");
    const first = new NinepServer(new Ramfs());
    await first.listen(path);
    const second = new NinepServer(new Ramfs());
    await expect(second.listen(path)).rejects.toThrow(`another server is listening on ${path}`);
    const client = await NinepClient.dial(path);
    await client.attach({ uname: "glenda" });
    client.close();
    await first.close();
    writeFileSync(path, "not a socket");
    await expect(second.listen(path)).rejects.toThrow(`${path} exists and is not a socket`);
  });
});
