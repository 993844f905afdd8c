import { readFileSync } from "node:fs";
import { join } from "node:path";
import { fileURLToPath } from "node:url";
import { execa } from "execa";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { OLLIE, type Ollie, prompt, startOllie } from "./harness.js";
import { installProbe } from "./probe-tool.js";

const NINEP = fileURLToPath(new URL("../../../packages/ninep/bin/ninep.js", import.meta.url));

let o: Ollie;
let tcp: string;
beforeAll(async () => {
  o = await startOllie("olliesrv-sec-", { args: ["--tcp", "0", "--max-depth", "0"], setup: installProbe });
  // The TCP listener comes up after the sessions are restored.
  tcp = /serving on (tcp!\S+)/.exec(await o.logged(/serving on tcp!/))![1]!;
});
afterAll(async () => {
  await o.stop();
  await o.remove();
});

/** Expects `line` in the daemon's log (it may take a moment to arrive). */
const audited = async (line: string) => expect(await o.logged(line)).toContain(line);

type Step = {
  as?: string;
  key?: string;
  op: "attach" | "read" | "write" | "new";
  path?: string;
  data?: string;
  address?: string;
};

/** Runs the probe tool as the main agent of `session`, inside its sandbox; returns what it printed. */
async function probe(session: string, steps: Step[], file?: string): Promise<string[]> {
  const agent = `session/${session}/agent/main`;
  o.mock.enqueue(
    { toolCalls: [{ name: "probe", arguments: { steps: JSON.stringify(steps), ...(file && { file }) } }] },
    { text: "Probed." },
  );
  await prompt(o, agent, "probe");
  const history = JSON.parse(await o.read(`${agent}/context`)) as Array<{ role: string; content: string }>;
  return history
    .findLast((m) => m.role === "tool")!
    .content.trim()
    .split("\n");
}

describe("principals", () => {
  it("refuses a sandboxed tool that claims the owner's uname or another agent's, and the owner's key file", async () => {
    const a = await o.create(`agent=prober cwd=${o.work}`);
    const b = await o.create(`agent=prober cwd=${o.work}`);
    const said = await probe(
      a,
      [
        { as: o.owner, key: "none", op: "attach" },
        { as: o.owner, op: "attach" },
        { as: `${b}.main`, key: "none", op: "attach" },
        { as: `${b}.main`, op: "attach" },
        { op: "read", path: "session/idx" },
      ],
      o.keyFile,
    );
    expect(said).toEqual([
      `attach  as ${o.owner}: authentication required`,
      `attach  as ${o.owner}: authentication failed`,
      `attach  as ${b}.main: authentication required`,
      `attach  as ${b}.main: authentication failed`,
      expect.stringMatching(new RegExp(`^read session/idx as ${a}\\.main: ok .*${b}`, "s")),
      `read ${o.keyFile}: EACCES`,
    ]);
    await audited(`[audit]: refused attach as ${o.owner} from unix: authentication required`);
    await audited(`[audit]: refused attach as ${o.owner} from unix: authentication failed`);
    await audited(`[audit]: refused attach as ${b}.main from unix: authentication failed`);
  });

  it("keeps an agent from prompting itself and from writing a stranger's session, until granted", async () => {
    const a = await o.create(`agent=prober cwd=${o.work}`);
    const b = await o.create(`agent=prober cwd=${o.work}`);
    await o.fsys.writeFile(`session/${b}/plan`, "- [ ] b's own step\n");
    const me = `${a}.main`;
    const writes = (target: string): Step[] => [
      { op: "write", path: `session/${target}/plan`, data: "- [ ] overwritten\n" },
      { op: "write", path: `session/${target}/env`, data: "X=1\n" },
      { op: "write", path: `session/${target}/ctl`, data: "rename taken\n" },
      { op: "write", path: `session/${target}/agent/main/ctl`, data: "clear\n" },
      { op: "write", path: `session/${target}/agent/main/cfg`, data: "model=other\n" },
    ];
    expect(
      await probe(a, [
        { op: "write", path: `session/${a}/agent/main/prompt`, data: "again" },
        { op: "write", path: `peer/${me}`, data: "again" },
        { op: "write", path: `session/${a}/agent/main/ctl`, data: "queue again\n" },
        { op: "write", path: `session/${a}/agent/main/ctl`, data: "inject again\n" },
        { op: "write", path: `session/${a}/ctl`, data: "cd /\n" },
        { op: "write", path: `session/${a}/env`, data: "TMPDIR=/\n" },
        ...writes(b),
        { op: "read", path: `session/${b}/plan` },
        { op: "write", path: `session/${a}/plan`, data: "- [ ] my own step\n" },
        { op: "new", data: "agent=default cwd=/" },
        { op: "new", data: `agent=default cwd=${o.work}` },
      ]),
    ).toEqual([
      `write session/${a}/agent/main/prompt as ${me}: session/${a}/agent/main/prompt: permission denied`,
      `write peer/${me} as ${me}: peer/${me}: permission denied`,
      `write session/${a}/agent/main/ctl as ${me}: session/${a}/agent/main/ctl: queue: an agent may not prompt itself`,
      `write session/${a}/agent/main/ctl as ${me}: session/${a}/agent/main/ctl: inject: an agent may not prompt itself`,
      `write session/${a}/ctl as ${me}: session/${a}/ctl: cd: only ${o.owner} may move a session: its directory is what its tools may write`,
      `write session/${a}/env as ${me}: session/${a}/env: permission denied`,
      ...writes(b).map((s) => `write ${s.path} as ${me}: ${s.path}: permission denied`),
      `read session/${b}/plan as ${me}: ok - [ ] b's own step`,
      `write session/${a}/plan as ${me}: ok`,
      `new  as ${me}: session/new: a spawned session works inside its parent's directory ${o.work}, not in /`,
      `new  as ${me}: session/new: spawn depth limit 0 reached: ${me} is 0 spawns deep and may not spawn`,
    ]);
    expect(await o.read(`session/${b}/plan`)).toBe("- [ ] b's own step\n");
    expect(await o.read(`session/${a}/plan`)).toBe("- [ ] my own step\n");
    for (const path of [
      `session/${a}/agent/main/prompt`,
      `peer/${me}`,
      `session/${a}/env`,
      ...writes(b).map((step) => step.path!),
    ])
      await audited(`[audit]: denied ${me} write /${path}\n`);
    await audited(`[audit]: refused a prompt from ${me} to itself\n`);
    await audited(`[audit]: refused cd by ${me}: only ${o.owner} may move a session`);
    await audited(`[audit]: refused spawn by ${me}: a spawned session works inside`);
    await audited(`[audit]: refused spawn by ${me}: spawn depth limit 0 reached`);

    await o.fsys.writeFile(`session/${b}/ctl`, `grant ${me}\n`);
    expect(await probe(a, [writes(b)[0]!])).toEqual([`write session/${b}/plan as ${me}: ok`]);
    expect(await o.read(`session/${b}/plan`)).toBe("- [ ] overwritten\n");
  });

  it("keeps backends.check (which runs every key_cmd) from agents, and backends.conf from their tools", async () => {
    const a = await o.create(`agent=prober cwd=${o.work}`);
    const me = `${a}.main`;
    expect(await probe(a, [{ op: "read", path: "backends.check" }])).toEqual([
      `read backends.check as ${me}: backends.check: permission denied`,
    ]);
    await audited(`[audit]: denied ${me} read /backends.check\n`);
    const check = await o.fsys.stat("backends.check");
    expect([check.mode & 0o777, check.uid]).toEqual([0o400, o.owner]);
    expect(await o.read("backends.check")).toMatch(/^# .*\nok\t\* mock\t/);

    // A session whose directory holds the configuration: its tools could rewrite what olliesrv runs.
    const configHome = join(o.root, "config");
    const conf = join(configHome, "ollie", "backends.conf");
    const before = readFileSync(conf, "utf8");
    const id = await o.create(`agent=coding cwd=${configHome}`);
    const agent = `session/${id}/agent/main`;
    o.mock.enqueue(
      {
        toolCalls: [
          { name: "shell", arguments: { command: "echo 'key_cmd = touch /tmp/x' >> ollie/backends.conf" } },
        ],
      },
      { text: "Tried." },
    );
    await prompt(o, agent, "rewrite it");
    expect(await o.read(`${agent}/chat`)).toContain(
      `← shell failed: shell could not start: filesystem.rw grants '${configHome}', which holds the protected path '${conf}'`,
    );
    expect(readFileSync(conf, "utf8")).toBe(before);
  });

  it("refuses TCP clients without a proof or with a wrong one, and serves the owner's proof", async () => {
    await expect(o.attachAs(o.owner, undefined, tcp)).rejects.toThrow("authentication required");
    await expect(o.attachAs(o.owner, "not the key", tcp)).rejects.toThrow("authentication failed");
    await expect(o.attachAs("somebody", "a guess", tcp)).rejects.toThrow("authentication failed");
    await expect(o.attachAs("somebody", o.ownerKey(), tcp)).rejects.toThrow(
      `authentication failed: the key proves "${o.owner}", but the attach claimed "somebody"`,
    );
    expect(
      await o.logged(/\[audit\]: refused attach as \S+ from tcp!127\.0\.0\.1!\d+: authentication required/),
    ).toMatch(/\[audit\]: refused attach as \S+ from tcp!127\.0\.0\.1!\d+: authentication required/);
    await audited("[audit]: refused attach as unknown principal somebody from tcp!127.0.0.1!");
    const forged = "2026-01-01T00:00:00.000Z ERROR olliesrv: forged";
    await expect(o.attachAs(`mallory\n${forged}`, "a guess", tcp)).rejects.toThrow("authentication failed");
    await audited(`[audit]: refused attach as unknown principal mallory\\n${forged} from tcp!`);
    expect(o.log()).not.toContain(`\n${forged}`);

    const id = await o.create(`cwd=${o.work} name=over-tcp`);
    const fsys = await o.attachAs(o.owner, o.ownerKey(), tcp);
    expect((await fsys.readdir("session")).map((e) => e.name)).toContain(id);

    const ollie = await execa(process.execPath, [OLLIE, "-a", tcp, "-k", o.keyFile, "ls"], { reject: false });
    expect(ollie.stdout).toContain(`${id}\tover-tcp\tidle`);
    const ninep = await execa(process.execPath, [NINEP, "-a", tcp, "-k", o.keyFile, "read", "session/idx"]);
    expect(ninep.stdout).toContain(id);
    const stranger = await execa(process.execPath, [NINEP, "-a", tcp, "ls", "session"], { reject: false });
    expect(stranger.exitCode).not.toBe(0);
    expect(stranger.stderr).toContain("authentication required");
    expect(stranger.stdout).toBe("");
  });
});

describe("the owner's mount socket", () => {
  it("refuses a sandboxed tool of the owner's own user, which cannot shed the launcher's seccomp filter", async () => {
    const mount = `unix!${join(o.root, "ns", "ollie.mount")}`;
    const a = await o.create(`agent=prober cwd=${o.work}`);
    const said = await probe(a, [
      { address: mount, as: o.owner, key: "none", op: "read", path: "session/idx" },
      { address: mount, key: "none", op: "new", data: `cwd=${o.work}` },
    ]);
    expect(said).toEqual([
      `read session/idx as ${o.owner}: connection closed`,
      `new  as ${a}.main: connection closed`,
    ]);
    await o.logged(
      /\[audit\]: refused the mount socket to pid \d+ \(uid \d+\): it runs under seccomp filters olliesrv does not, as sandboxed tools do\n/,
    );
    expect(o.log()).not.toMatch(/connection refused/);
  });
});
