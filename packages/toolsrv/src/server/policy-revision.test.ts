import { chmodSync, mkdirSync, mkdtempSync, realpathSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { resolvePolicy, withLayer } from "@ollie/sandbox";
import { afterAll, describe, expect, it } from "vitest";
import { createToolServer } from "./tool-server.js";

const root = realpathSync(mkdtempSync(join(tmpdir(), "toolsrv-policy-")));
const dirs = Object.fromEntries(["tools", "data", "work", "tmp"].map((d) => [d, join(root, d)])) as Record<
  "tools" | "data" | "work" | "tmp",
  string
>;
for (const d of Object.values(dirs)) mkdirSync(d);
writeFileSync(join(dirs.data, "note"), "a note\n");
const tool = join(dirs.tools, "note");
writeFileSync(
  tool,
  `#!/bin/sh\n# ollie:tool note\n# ollie:description Reads the note.\ncat ${dirs.data}/note\n`,
);
chmodSync(tool, 0o755);

const base = await resolvePolicy({ env: { HOME: root, XDG_CONFIG_HOME: join(root, "no-config") } });
const granting = withLayer(base, { filesystem: { ro: [dirs.data] } }, "the data directory");
const server = createToolServer({
  toolsPath: [dirs.tools],
  policy: granting,
  owner: "glenda",
  defaultTools: ["note"],
});
afterAll(async () => {
  await server.close();
  rmSync(root, { recursive: true, force: true });
});

const call = () =>
  server.service.call(
    "agent1",
    { tool: "note", cwd: dirs.work, env: { PATH: "/usr/bin:/bin", TMPDIR: dirs.tmp } },
    new AbortController().signal,
  );

describe("a new policy", () => {
  it("applies from the next call on: nothing built for the old one is used again", async () => {
    expect(await call()).toMatchObject({ isError: false, output: "a note\n" });
    expect(await call()).toMatchObject({ isError: false, output: "a note\n" });
    server.service.setPolicy(base);
    const refused = await call();
    expect(refused).toMatchObject({ isError: true, exitCode: 1, output: "" });
    expect(refused.stderr).toContain(`${dirs.data}/note: Permission denied`);
    expect((await server.service.sandbox()).policy).toBe(base);
    server.service.setPolicy(granting);
    expect(await call()).toMatchObject({ isError: false, output: "a note\n" });
  });
});
