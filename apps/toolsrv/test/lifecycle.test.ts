import { existsSync, readFileSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { Agent } from "@ollie/agent-core";
import { ScriptedBackend } from "@ollie/backends/testing";
import { processGone } from "@ollie/sandbox/testing";
import { afterAll, describe, expect, it, vi } from "vitest";
import { scratch, shTool, startDaemon, WAIT } from "./daemon.js";

const s = scratch("toolsrv-lifecycle-");
afterAll(() => s.remove());

describe("toolsrv's lifecycle", () => {
  it("runs default tools under the sandbox, serves an agent-core agent, and keeps detached output in proc/", async () => {
    s.tool("ticker", shTool("ticker", "", "for i in 1 2 3; do echo tick $i; sleep 0.05; done"));
    writeFileSync(join(s.work, "README.md"), "# Ollie\nA 9P agent runtime.\n");
    const daemon = await startDaemon(s);
    try {
      const conn = await daemon.conn("agent1", { autoLoad: ["file_read", "ticker"] });
      const backend = new ScriptedBackend({
        replies: [
          { toolCalls: [{ name: "file_read", arguments: { path: "README.md" } }] },
          { text: "It is a 9P agent runtime." },
        ],
      });
      const agent = await Agent.create({ backend, tools: conn, cwd: s.work });
      expect(agent.runtime.toolInfo.get("file_read")).toMatchObject({
        readSafe: true,
        tier: "cold",
        cache: { pathArgument: "path" },
      });
      const outcome = await agent.submit("What is this project?");
      expect(outcome.status).toBe("done");
      // The model read the whole file; then the cold result was collapsed in the history.
      expect(backend.calls[1]!.messages.at(-1)).toMatchObject({
        role: "tool",
        content: "1\t# Ollie\n2\tA 9P agent runtime.\n",
      });
      expect(agent.history[2]?.content).toMatch(/^\[collapsed: file_read returned 32 bytes/);

      const started = await conn.callRaw(
        { tool: "ticker", args: {}, detach: true },
        new AbortController().signal,
      );
      expect(started).toMatchObject({ detached: true, isError: false });
      const { fsys, close } = await daemon.attach("agent1");
      const output = await fsys.open(`proc/${started.proc}/output`);
      let text = "";
      for (let offset = 0; ; ) {
        const chunk = await output.read(offset);
        if (chunk.length === 0) break;
        text += chunk.toString();
        offset += chunk.length;
      }
      expect(text).toBe("tick 1\ntick 2\ntick 3\n");
      expect((await fsys.readFile(`proc/${started.proc}/status`)).toString()).toBe("exited 0\n");
      expect(JSON.parse((await fsys.readFile(`proc/${started.proc}/info`)).toString())).toMatchObject({
        tool: "ticker",
        agent: "agent1",
        detached: true,
      });
      close();
      await agent.close();
    } finally {
      await daemon.stop();
    }
  });

  it("on SIGTERM kills its running tools and removes its socket", async () => {
    s.tool("forever", shTool("forever", "", `echo $$ > ${s.work}/forever.pid; sleep 1000`));
    const daemon = await startDaemon(s, ["--default-tools", "forever"]);
    const conn = await daemon.conn("agent2");
    const pending = conn.call("forever", {}, new AbortController().signal).catch((e: unknown) => e);
    const pidFile = join(s.work, "forever.pid");
    await vi.waitFor(() => expect(existsSync(pidFile)).toBe(true), WAIT);
    const pid = Number(readFileSync(pidFile, "utf8"));
    await daemon.stop();
    expect(daemon.child.exitCode).toBe(0);
    expect(processGone(pid)).toBe(true);
    expect(existsSync(join(s.root, "toolsrv.sock"))).toBe(false);
    await pending;
  });
});
