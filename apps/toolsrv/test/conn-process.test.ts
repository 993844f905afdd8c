import { afterAll, beforeAll, describe, expect, it, vi } from "vitest";
import { type Daemon, scratch, shTool, startDaemon, WAIT } from "./daemon.js";

const s = scratch("toolsrv-conn-proc-");
s.tool("talker", shTool("talker", "", "echo first\nsleep 1000"));
let daemon: Daemon;
beforeAll(async () => {
  daemon = await startDaemon(s, ["--default-tools", "talker"]);
});
afterAll(async () => {
  await daemon.stop();
  s.remove();
});

describe("ToolsrvConn on one of its agent's processes", () => {
  it("describes it, streams its output until it ends, and tells another agent nothing", async () => {
    const conn = await daemon.conn("agent1");
    const other = await daemon.conn("agent2");
    const ac = new AbortController();
    const call = conn.call("talker", {}, ac.signal).catch((e: unknown) => e);
    const id = await vi.waitFor(async () => {
      const running = (await conn.processes()).find((p) => p.status === "running");
      expect(running).toBeDefined();
      return running!.id;
    }, WAIT);
    const info = await conn.process(id);
    expect(info).toMatchObject({ id, tool: "talker", agent: "agent1", status: "running" });
    expect(await other.process(id)).toBeUndefined();
    await expect(other.openOutput(id)).rejects.toThrow(`no process ${id} of agent2`);
    expect(await conn.process(99_999)).toBeUndefined();

    const output = await conn.openOutput(id);
    expect((await output.read(0)).toString()).toBe("first\n");
    const rest = output.read(6);
    await conn.kill(id);
    expect((await rest).length).toBe(0);
    await output.close();
    await call;
    expect((await conn.process(id))?.status).not.toBe("running");
    await conn.close();
    await other.close();
  });
});
