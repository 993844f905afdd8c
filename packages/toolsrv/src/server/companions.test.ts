import {
  chmodSync,
  mkdirSync,
  mkdtempSync,
  readFileSync,
  realpathSync,
  rmSync,
  writeFileSync,
} from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { resolvePolicy } from "@ollie/sandbox";
import { processGone } from "@ollie/sandbox/testing";
import { afterAll, describe, expect, it, vi } from "vitest";
import { createToolServer } from "./tool-server.js";

const root = realpathSync(mkdtempSync(join(tmpdir(), "toolsrv-companions-")));
const dirs = Object.fromEntries(["tools", "work", "tmp"].map((d) => [d, join(root, d)])) as Record<
  "tools" | "work" | "tmp",
  string
>;
for (const d of Object.values(dirs)) mkdirSync(d);

function executable(name: string, body: string): void {
  writeFileSync(join(dirs.tools, name), body);
  chmodSync(join(dirs.tools, name), 0o755);
}

// The companion writes its pid where the tool reads it: the tool reports which companion serves it.
executable("helper", `#!/bin/sh\necho $$ > "$TMPDIR/helper-$OLLIE_UNAME.pid"\nexec sleep 1000\n`);
executable(
  "ask",
  `#!/bin/sh\n# ollie:tool ask\n# ollie:description Asks its companion.\n# ollie:companion helper\n` +
    `f="$TMPDIR/helper-$OLLIE_UNAME.pid"; i=0; while [ ! -s "$f" ] && [ $i -lt 200 ]; do sleep 0.05; i=$((i+1)); done; cat "$f"\n`,
);
executable(
  "lonely",
  `#!/bin/sh\n# ollie:tool lonely\n# ollie:description Has no companion file.\n# ollie:companion nobody\necho hi\n`,
);

const server = createToolServer({
  toolsPath: [dirs.tools],
  policy: await resolvePolicy({ env: { HOME: root, XDG_CONFIG_HOME: join(root, "no-config") } }),
  owner: "glenda",
  defaultTools: ["ask", "lonely"],
});
afterAll(async () => {
  await server.close();
  rmSync(root, { recursive: true, force: true });
});

const call = (uname: string, tool = "ask") =>
  server.service.call(
    uname,
    { tool, cwd: dirs.work, env: { PATH: "/usr/bin:/bin", TMPDIR: dirs.tmp } },
    new AbortController().signal,
  );
const companionsOf = (uname: string) =>
  server.service.procs.list().filter((p) => p.uname === uname && p.run.tool === "helper");
const alive = (pid: number) => !processGone(pid);

describe("companions", () => {
  it("starts one detached companion per agent, shared by its calls, and again after it ended", async () => {
    const [first, second] = await Promise.all([call("agent1"), call("agent1")]);
    expect(first).toMatchObject({ isError: false });
    expect(second.output).toBe(first.output);
    const [companion] = companionsOf("agent1");
    expect(companionsOf("agent1")).toHaveLength(1);
    expect(companion).toMatchObject({ detached: true, cwd: dirs.work });
    expect(companion?.status.get()).toBe("running");

    const other = await call("agent2");
    expect(other.output).not.toBe(first.output);
    expect(companionsOf("agent2")).toHaveLength(1);

    const pid = Number(first.output);
    companion?.run.kill();
    await companion?.run.done;
    expect(alive(pid)).toBe(false);
    rmSync(join(dirs.tmp, "helper-agent1.pid"));
    const again = await call("agent1");
    expect(Number(again.output)).not.toBe(pid);
    expect(companionsOf("agent1").filter((p) => p.status.get() === "running")).toHaveLength(1);
  });

  it("refuses the call when the companion is missing, saying which file", async () => {
    expect(await call("agent1", "lonely")).toEqual({
      output: `lonely could not start: its companion ${join(dirs.tools, "nobody")} is missing or not executable`,
      isError: true,
    });
  });

  it("ends companions when the server closes", async () => {
    await call("agent3");
    const pid = Number(readFileSync(join(dirs.tmp, "helper-agent3.pid"), "utf8"));
    await server.close();
    await vi.waitFor(() => expect(alive(pid)).toBe(false), { timeout: 10_000 });
    expect(companionsOf("agent3")[0]?.status.get()).not.toBe("running");
  });
});
