import { spawn } from "node:child_process";
import { existsSync, mkdirSync, readFileSync, symlinkSync, writeFileSync } from "node:fs";
import { type AddressInfo, createServer, type Server } from "node:net";
import { join } from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { bash, type Scratch, scratch } from "../__fixtures__/sandbox-fixture.js";

let s: Scratch;
let allowedPort: number;
let deniedPort: number;
const servers: Server[] = [];

async function listener(): Promise<number> {
  const server = createServer((sock) => {
    sock.on("error", () => {});
    sock.end("hello\n");
  });
  servers.push(server);
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
  return (server.address() as AddressInfo).port;
}

beforeAll(async () => {
  s = await scratch();
  allowedPort = await listener();
  deniedPort = await listener();
});

afterAll(() => {
  for (const server of servers) server.close();
  s.cleanup();
});

describe("the filesystem under Landlock", () => {
  it("allows reading ro, writing rw, and refuses writing outside rw", async () => {
    const r = await bash(
      s,
      `cat ${s.ro}/readable.txt; echo made > ${s.rw}/made && cat ${s.rw}/made; echo x > ${s.outside}/nope; echo x > ${s.ro}/nope`,
    );
    expect(r.out).toBe("readable\nmade");
    expect(r.err).toContain(`${s.outside}/nope: Permission denied`);
    expect(r.err).toContain(`${s.ro}/nope: Permission denied`);
    expect(existsSync(join(s.outside, "nope"))).toBe(false);
  });

  it("refuses reading outside ro, including /etc/shadow and keys under {HOME} the policy does not list", async () => {
    const home = s.env.HOME!;
    mkdirSync(join(home, ".ssh"), { recursive: true });
    mkdirSync(join(home, ".config"), { recursive: true });
    writeFileSync(join(home, ".ssh", "id_ed25519"), "PRIVATE KEY\n");
    writeFileSync(join(home, ".config", "tool.conf"), "setting\n");
    const policy = await s.policy({ filesystem: { ro: ["{HOME}/.config"] } });
    const r = await bash(
      s,
      `cat ${s.outside}/secret.txt; cat /etc/shadow; cat $HOME/.ssh/id_ed25519; cat $HOME/.config/tool.conf`,
      { policy },
    );
    expect(r.out).toBe("setting");
    expect(r.err.match(/Permission denied/g)).toHaveLength(3);
  });

  it("refuses executing outside rox and rwx", async () => {
    await bash(s, `cp /usr/bin/true ${s.rw}/true-in-rw; cp /usr/bin/true ${s.rwx}/true-in-rwx`);
    const denied = await s.run(`${s.rw}/true-in-rw`, []);
    expect(denied.exitCode).toBe(126);
    expect(denied.launcherError).toBe(`${s.rw}/true-in-rw: cannot execute: Permission denied`);
    expect((await s.run(`${s.rwx}/true-in-rwx`, [])).exitCode).toBe(0);
    expect((await bash(s, `${s.rw}/true-in-rw`)).code).toBe(126);
  });

  it("refuses writing through a symlink that points outside", async () => {
    symlinkSync(join(s.outside, "secret.txt"), join(s.rw, "link"));
    const r = await bash(s, `echo pwned > ${s.rw}/link`);
    expect(r.err).toContain("Permission denied");
    expect(readFileSync(join(s.outside, "secret.txt"), "utf8")).toBe("secret\n");
  });

  it("refuses hard-linking or renaming a file out of the writable tree, and allows renames inside it", async () => {
    const r = await bash(
      s,
      `echo data > ${s.rw}/f; mkdir -p ${s.rw}/sub; mv ${s.rw}/f ${s.rw}/sub/f && echo moved-inside;` +
        ` ln ${s.rw}/sub/f ${s.outside}/hard; mv ${s.rw}/sub/f ${s.outside}/renamed; ln ${s.outside}/secret.txt ${s.rw}/stolen`,
    );
    expect(r.out).toBe("moved-inside");
    expect(existsSync(join(s.outside, "hard"))).toBe(false);
    expect(existsSync(join(s.outside, "renamed"))).toBe(false);
    expect(existsSync(join(s.rw, "stolen"))).toBe(false);
    expect(
      r.err.split("\n").filter((l) => /Permission denied|Invalid cross-device link/.test(l)),
    ).toHaveLength(3);
  });

  it("passes restrictions to children and grandchildren", async () => {
    const r = await bash(s, `bash -c 'bash -c "echo x > ${s.outside}/deep"; echo child-ran'`);
    expect(r.out).toBe("child-ran");
    expect(r.err).toContain("Permission denied");
    expect(existsSync(join(s.outside, "deep"))).toBe(false);
  });

  it("does not let a nested launcher ask for more", async () => {
    const r = await bash(
      s,
      `${s.launcher} --rw / --rox /usr --unrestricted-network --unrestricted-scope -- bash -c 'echo x > ${s.outside}/nested; echo nested-ran'`,
    );
    expect(r.out).toBe("nested-ran");
    expect(r.err).toContain("Permission denied");
    expect(existsSync(join(s.outside, "nested"))).toBe(false);
  });

  it("hands the command only standard input, output and error", async () => {
    const r = await bash(s, "ls /proc/self/fd");
    expect(r.out.split("\n").sort()).toEqual(["0", "1", "2", "3"]);
  });
});

describe("the network under Landlock and seccomp", () => {
  it("allows connecting to an allowed TCP port and refuses another", async () => {
    const policy = await s.policy({ network: { connect_tcp: [allowedPort] } });
    const ok = await s.run(s.probe, ["connect", String(allowedPort)], { policy });
    const denied = await s.run(s.probe, ["connect", String(deniedPort)], { policy });
    expect(ok.stdout.toString()).toBe("ok\n");
    expect(denied.stdout.toString()).toBe("Permission denied\n");
  });

  it("refuses MPTCP, which would bypass the TCP rules, even to an allowed port", async () => {
    const policy = await s.policy({ network: { connect_tcp: [allowedPort] } });
    for (const port of [deniedPort, allowedPort]) {
      const r = await s.run(s.probe, ["connect-mptcp", String(port)], { policy });
      expect(r.stdout.toString()).toBe("Operation not permitted\n");
    }
  });

  it("refuses binding a port not granted, and allows an ephemeral one when port 0 is", async () => {
    const policy = await s.policy({ network: { bind_tcp: [0] } });
    expect((await s.run(s.probe, ["bind", String(deniedPort + 1)], { policy })).stdout.toString()).toBe(
      "Permission denied\n",
    );
    expect((await s.run(s.probe, ["bind", "0"], { policy })).stdout.toString()).toBe("ok\n");
  });

  it("refuses UDP and TCP when the network is disabled", async () => {
    const policy = await s.policy({ network: { enabled: false } });
    expect((await s.run(s.probe, ["udp", "53"], { policy })).stdout.toString()).toBe(
      "Operation not permitted\n",
    );
    expect((await s.run(s.probe, ["connect", String(allowedPort)], { policy })).stdout.toString()).toBe(
      "Operation not permitted\n",
    );
  });

  it("lets any port through when the network is unrestricted", async () => {
    const policy = await s.policy({ network: { unrestricted: true } });
    expect((await s.run(s.probe, ["connect", String(deniedPort)], { policy })).stdout.toString()).toBe(
      "ok\n",
    );
  });
});

describe("scoping", () => {
  it("refuses signalling a process outside the sandbox, and allows signalling its own child", async () => {
    const outsider = spawn("sleep", ["60"]);
    try {
      const r = await s.run(s.probe, ["kill", String(outsider.pid)]);
      expect(r.stdout.toString()).toBe("Operation not permitted\n");
      expect(outsider.exitCode).toBeNull();
      const own = await bash(s, "sleep 30 & kill $! && wait $!; echo status=$?");
      expect(own.out).toBe("status=143");
    } finally {
      outsider.kill();
    }
  });
});

describe("abstract Unix sockets", () => {
  it("refuses connecting to one created outside the sandbox, unless scoping is off at that ABI", async () => {
    const name = `ollie-sandbox-test-${process.pid}`;
    const outside = spawn(s.probe, ["abstract-listen", name]);
    try {
      await new Promise<void>((resolve) => outside.stdout.once("data", () => resolve()));
      expect((await s.run(s.probe, ["abstract", name])).stdout.toString()).toBe("Operation not permitted\n");
      const lenient = await s.policy({ general: { best_effort: true } });
      expect(
        (await s.run(s.probe, ["abstract", name], { policy: lenient, abiCap: 5 })).stdout.toString(),
      ).toBe("ok\n");
    } finally {
      outside.kill();
    }
  });
});

describe("older kernels, simulated by capping the ABI", () => {
  it("refuses rules the ABI cannot enforce, unless best effort drops only those", async () => {
    const policy = await s.policy({ network: { connect_tcp: [allowedPort] } });
    await expect(s.run(s.probe, ["connect", String(deniedPort)], { policy, abiCap: 3 })).rejects.toThrow(
      "The kernel's Landlock ABI 3 cannot enforce TCP port rules (ABI 4), signal and abstract-socket scoping (ABI 6)",
    );
    const lenient = await s.policy({
      network: { connect_tcp: [allowedPort] },
      general: { best_effort: true },
    });
    const tcp = await s.run(s.probe, ["connect", String(deniedPort)], { policy: lenient, abiCap: 3 });
    expect(tcp.stdout.toString()).toBe("ok\n");
    const fs = await bash(s, `echo x > ${s.outside}/abi3`, { policy: lenient, abiCap: 3 });
    expect(fs.err).toContain("Permission denied");
  });

  it("drops only scoping at ABI 5 in best effort: TCP rules still hold, signals get out", async () => {
    const lenient = await s.policy({
      network: { connect_tcp: [allowedPort] },
      general: { best_effort: true },
    });
    const outsider = spawn("sleep", ["60"]);
    try {
      expect(
        (
          await s.run(s.probe, ["connect", String(deniedPort)], { policy: lenient, abiCap: 5 })
        ).stdout.toString(),
      ).toBe("Permission denied\n");
      expect(
        (
          await s.run(s.probe, ["kill", String(outsider.pid)], { policy: lenient, abiCap: 5 })
        ).stdout.toString(),
      ).toBe("ok\n");
    } finally {
      outsider.kill();
    }
  });

  it("refuses to run at all without Landlock, even in best effort", async () => {
    const lenient = await s.policy({ general: { best_effort: true } });
    await expect(s.run("true", [], { policy: lenient, abiCap: 0 })).rejects.toThrow(
      /^Landlock is not available \(kernel ABI \d+, capped to 0\); commands will not run unsandboxed/,
    );
  });
});
