import { chmodSync, mkdirSync, mkdtempSync, realpathSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { resolvePolicy } from "@ollie/sandbox";
import { afterAll, describe, expect, it } from "vitest";
import { createToolServer } from "./tool-server.js";

// Real, so that messages name the paths as given even where the temporary directory is a symlink.
const root = realpathSync(mkdtempSync(join(tmpdir(), "toolsrv-protect-")));
const dirs = Object.fromEntries(["tools", "keys", "work", "tmp"].map((d) => [d, join(root, d)])) as Record<
  "tools" | "keys" | "work" | "tmp",
  string
>;
for (const d of Object.values(dirs)) mkdirSync(d);
const key = join(dirs.keys, "service.key");
writeFileSync(key, "the service key\n");
const tool = join(dirs.tools, "peek");
writeFileSync(
  tool,
  `#!/bin/sh\n# ollie:tool peek\n# ollie:description Says where it runs, then tries the key.\npwd; cat ${key}\n`,
);
chmodSync(tool, 0o755);

const server = createToolServer({
  toolsPath: [dirs.tools],
  policy: await resolvePolicy({ env: { HOME: root, XDG_CONFIG_HOME: join(root, "no-config") } }),
  owner: "glenda",
  defaultTools: ["peek"],
  protect: [key],
  // The tools' own directory: read and run, never written.
  protectWrites: [dirs.tools],
});
afterAll(async () => {
  await server.close();
  rmSync(root, { recursive: true, force: true });
});

// TMPDIR is the call's own: the default policy grants {TMPDIR}, which would otherwise be /tmp, holding root.
const call = (cwd: string) =>
  server.service.call(
    "agent1",
    { tool: "peek", cwd, env: { PATH: "/usr/bin:/bin", TMPDIR: dirs.tmp } },
    new AbortController().signal,
  );

describe("protected paths", () => {
  it("refuses a call whose working directory holds a protected file, saying why", async () => {
    expect(await call(dirs.keys)).toEqual({
      output: `peek could not start: filesystem.rw grants '${dirs.keys}', which holds the protected path '${key}'`,
      isError: true,
    });
  });

  it("refuses a call that could write where its tools are, and shows both lists in the agent's sandbox", async () => {
    expect(await call(dirs.tools)).toEqual({
      output: `peek could not start: filesystem.rw grants '${dirs.tools}', which is the protected path '${dirs.tools}'`,
      isError: true,
    });
    expect(await call(root)).toMatchObject({ isError: true, output: expect.stringContaining("holds") });
    expect(await server.service.sandbox()).toMatchObject({ protect: [key], protectWrites: [dirs.tools] });
  });

  it("runs a call in a sibling directory, where Landlock keeps the key out of reach", async () => {
    const r = await call(dirs.work);
    expect(r).toMatchObject({ isError: true, exitCode: 1, output: `${dirs.work}\n` });
    expect(r.stderr).toContain(`${key}: Permission denied`);
  });
});
