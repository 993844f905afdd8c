import { execFile, spawn } from "node:child_process";
import { type AddressInfo, createServer, type Server } from "node:net";
import { promisify } from "node:util";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { bash, type Scratch, scratch } from "../__fixtures__/sandbox-fixture.js";

/**
 * What an attacker inside the sandbox tries beyond files and TCP ports: sockets Landlock does not see,
 * io_uring, capabilities kept as root, terminal injection, other processes' /proc entries. Each refusal is
 * checked against the same helper run outside, where it succeeds (when this machine allows it at all).
 */

let s: Scratch;
let server: Server;
let deniedPort: number;
beforeAll(async () => {
  s = await scratch();
  server = createServer((sock) => {
    sock.on("error", () => {});
    sock.end("hello\n");
  });
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
  deniedPort = (server.address() as AddressInfo).port;
});
afterAll(() => {
  server.close();
  s.cleanup();
});

const outside = async (file: string, args: string[]) =>
  (await promisify(execFile)(file, args).catch((e: { stdout: string }) => e)).stdout.trim();
const inside = async (file: string, args: string[], extra: object = {}) =>
  (await s.run(file, args, { policy: await s.policy(extra) })).stdout.toString().trim();

describe("io_uring", () => {
  it.each(["tcp", "mptcp"])(
    "cannot make a %s socket through io_uring to reach a port the policy does not allow",
    async (kind) => {
      expect(await outside(s.uring, [kind, String(deniedPort)])).toBe("read: hello");
      expect(await inside(s.uring, [kind, String(deniedPort)])).toBe(
        "io_uring_setup: Function not implemented",
      );
      const offline = await inside(s.uring, [kind, String(deniedPort)], { network: { enabled: false } });
      expect(offline).toBe("io_uring_setup: Function not implemented");
    },
  );
});

describe("sockets Landlock does not see", () => {
  const refused: Array<[string, string]> = [
    ["mptcp", "Operation not permitted"],
    ["raw-icmp", "Operation not permitted"],
    ["ping", "Operation not permitted"],
    ["sctp", "Operation not permitted"],
    ["netlink-uevent", "Operation not permitted"],
    ["packet", "Address family not supported by protocol"],
    ["vsock", "Address family not supported by protocol"],
    ["alg", "Address family not supported by protocol"],
  ];
  it.each(refused)("refuses %s sockets (%s), with the network on or off", async (kind, error) => {
    for (const network of [{}, { network: { enabled: false } }]) {
      expect(await inside(s.probe, ["socket", kind], network)).toBe(error);
    }
  });

  it("the refusals are the sandbox's: as root, raw and packet sockets open outside", async () => {
    if (process.getuid?.() !== 0) return;
    expect(await outside(s.probe, ["socket", "raw-icmp"])).toBe("ok");
    expect(await outside(s.probe, ["socket", "packet"])).toBe("ok");
  });

  it("allows TCP (with the type flags), TCP over IPv6, UDP, Unix and route netlink sockets", async () => {
    for (const kind of ["tcp-flags", "tcp6", "udp", "netlink-route", "unix"]) {
      expect(`${kind}: ${await inside(s.probe, ["socket", kind])}`).toBe(`${kind}: ok`);
    }
    expect(await inside(s.probe, ["socketpair", "unix"])).toBe("ok");
    expect(await inside(s.probe, ["socketpair", "inet"])).toBe("Address family not supported by protocol");
  });

  it("with the network off, allows Unix and route netlink sockets and nothing of IPv4 or IPv6", async () => {
    const off = { network: { enabled: false } };
    expect(await inside(s.probe, ["socket", "unix"], off)).toBe("ok");
    expect(await inside(s.probe, ["socket", "netlink-route"], off)).toBe("ok");
    for (const kind of ["tcp-flags", "tcp6", "udp"]) {
      expect(await inside(s.probe, ["socket", kind], off)).toBe("Operation not permitted");
    }
  });
});

describe("privileges", () => {
  it("holds no capability inside, even when started as root", async () => {
    const r = await bash(s, "grep -E '^(Cap(Inh|Prm|Eff|Bnd|Amb)|NoNewPrivs)' /proc/self/status");
    expect(r.out.split("\n")).toEqual([
      "CapInh:\t0000000000000000",
      "CapPrm:\t0000000000000000",
      "CapEff:\t0000000000000000",
      "CapBnd:\t0000000000000000",
      "CapAmb:\t0000000000000000",
      "NoNewPrivs:\t1",
    ]);
  });

  it("cannot reach the kernel keyrings it would share with the user", async () => {
    expect(await outside(s.probe, ["keyctl", "-"])).toBe("ok");
    expect(await inside(s.probe, ["keyctl", "-"])).toBe("Function not implemented");
  });

  it("cannot push input into a terminal (TIOCSTI)", async () => {
    expect(await outside(s.probe, ["tiocsti", "-"])).toBe("ok");
    expect(await inside(s.probe, ["tiocsti", "-"], { filesystem: { rw: ["/dev/ptmx", "/dev/pts"] } })).toBe(
      "Operation not permitted",
    );
  });
});

describe("/proc", () => {
  it("every process inside reads its own /proc/self; processes outside are not there", async () => {
    const outsider = spawn("sleep", ["60"]);
    try {
      const r = await bash(
        s,
        `bash -c 'grep -c ^Name: /proc/self/status; ls /proc/self/fd | wc -l; grep -c . /proc/self/maps >/dev/null && echo maps; cut -d" " -f1 /proc/self/stat' ; cat /proc/${outsider.pid}/cmdline; cat /proc/1/environ; ls /proc | grep -c -x ${outsider.pid}`,
      );
      const [name, fds, maps, pid, ...rest] = r.out.split("\n");
      expect([name, maps]).toEqual(["1", "maps"]);
      expect(Number(fds)).toBeGreaterThan(2);
      expect(Number(pid)).toBeGreaterThan(1);
      expect(rest).toEqual(["0"]);
      expect(r.err).toMatch(
        new RegExp(`/proc/${outsider.pid}/cmdline: (No such file or directory|Permission denied)`),
      );
      expect(r.err).toMatch(/\/proc\/1\/environ: (No such file or directory|Permission denied)/);
    } finally {
      outsider.kill();
    }
  });
});
