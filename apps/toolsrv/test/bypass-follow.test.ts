import { randomBytes } from "node:crypto";
import { mkdirSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { hmacAuthenticator, OWRITE } from "@ollie/ninep";
import { BypassConn } from "@ollie/toolsrv/client";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { type Daemon, scratch, shTool, startDaemon } from "./daemon.js";

/**
 * What a daemon acting for the owner follows: the pending list and its wait file (the owner's alone, proven
 * with the owner key), each request's decision, and a denial's reason; and each agent's sandbox.
 */

const s = scratch("toolsrv-follow-");
const serviceKey = randomBytes(24).toString("hex");
const ownerKey = randomBytes(24).toString("hex");
const ownerKeyFile = join(s.root, "owner.key");
const env = { TMPDIR: join(s.root, "tmp") };
let daemon: Daemon;

beforeAll(async () => {
  mkdirSync(env.TMPDIR);
  writeFileSync(ownerKeyFile, `${ownerKey}\n`);
  writeFileSync(
    join(s.config, "ollie", "bypass.yaml"),
    "operations:\n  - name: say_hi\n    argv: [echo, hi]\n    timeout: 30\n  - name: free\n    argv: ['true']\n    approval: none\n",
  );
  s.tool("noop", shTool("noop", "", "echo ok"));
  daemon = await startDaemon(s, ["--owner-key", ownerKeyFile, "--default-tools", "noop"], {
    OLLIE_TOOLSRV_KEY: serviceKey,
  });
});

afterAll(async () => {
  await daemon?.stop();
  s.remove();
});

const dial = (uname: string, key: string) =>
  BypassConn.dial({ address: daemon.address, uname, authenticator: hmacAuthenticator(key) });

describe("following the bypass broker", () => {
  it("shows the owner what waits, wakes the follower at each change, and keeps a denial's reason", async () => {
    const owner = await dial("glenda", ownerKey);
    const agent = await dial("s1.main", serviceKey);
    const stop = new AbortController();
    const seen = owner.follow(stop.signal);
    expect((await seen.next()).value).toEqual([]);

    expect(await agent.operations()).toBe("say_hi\trequired\t30\techo hi\nfree\tnone\t600\ttrue\n");
    const id = await agent.file({ operation: "say_hi", cwd: s.work, reason: "a greeting\nplease" });
    expect((await seen.next()).value).toEqual([
      { id, agent: "s1.main", operation: "say_hi", command: "echo hi", reason: "a greeting\\nplease" },
    ]);
    expect(await agent.request(id)).toMatchObject({
      id,
      agent: "s1.main",
      argv: ["echo", "hi"],
      cwd: s.work,
    });
    expect(await agent.decision(id)).toBe("pending");

    // The list is the owner's: an agent, which proves only the service key, may not read or follow it.
    await expect(agent.pending()).rejects.toThrow(/permission denied/);
    await expect(agent.fsys.open("bypass/wait")).rejects.toThrow(/permission denied/);
    await expect(agent.fsys.open(`bypass/requests/${id}/ctl`, OWRITE)).rejects.toThrow(/permission denied/);
    // Whoever holds only the service key cannot pass for the owner.
    await expect(dial("glenda", serviceKey)).rejects.toThrow(/authentication failed/);

    await owner.decide(id, "deny", "not   today\n");
    expect((await seen.next()).value).toEqual([]);
    expect(await agent.decision(id)).toBe("denied by glenda: not today");
    expect(await agent.status(id)).toBe("denied by glenda: not today");

    // One the policy lets through without approval never waits.
    const free = await agent.file({ operation: "free", cwd: s.work });
    expect(await agent.decision(free)).toBe("allowed by the policy");
    expect(await owner.pending()).toEqual([]);

    const second = await agent.file({ operation: "say_hi", cwd: s.work });
    expect((await seen.next()).value).toEqual([expect.objectContaining({ id: second })]);
    await owner.decide(second, "approve");
    expect((await seen.next()).value).toEqual([]);
    expect(await agent.decision(second)).toBe("approved by glenda");
    const output = await agent.fsys.readFile(`bypass/requests/${second}/output`);
    expect(output.toString()).toBe("hi\n");
    expect(await agent.status(second)).toBe("exited 0");
    stop.abort();
    await seen.return(undefined);
    await owner.close();
    await agent.close();
  });

  it("serves each agent's sandbox, expanded for its last call", async () => {
    const conn = await daemon.conn("s2.main", { authenticator: hmacAuthenticator(serviceKey), env });
    const before = await conn.sandbox();
    expect(before).toMatchObject({ agent: "s2.main", expandedFor: null, protect: [ownerKeyFile] });
    expect(before.filesystem.rw).toContain("{CWD}");
    await conn.callRaw({ tool: "noop", args: {} }, new AbortController().signal);
    const after = await conn.sandbox();
    expect(after.expandedFor).toMatchObject({ cwd: s.work });
    expect(after.filesystem.rw).toEqual(expect.arrayContaining([s.work, env.TMPDIR]));
    expect(after.filesystem.rw.join(" ")).not.toContain("{");

    const owner = await daemon.attach("glenda", hmacAuthenticator(ownerKey));
    const agents = (await owner.fsys.readdir("agent")).map((e) => e.name);
    expect(agents).toContain("s2.main");
    const listed = JSON.parse((await owner.fsys.readFile("agent/s2.main/sandbox")).toString());
    expect(listed).toEqual(after);
    owner.close();
    await conn.close();
  });
});
