import { chmodSync, mkdirSync, mkdtempSync, rmSync, utimesSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, describe, expect, it } from "vitest";
import { ToolCatalog } from "./tool-catalog.js";

const root = mkdtempSync(join(tmpdir(), "toolsrv-catalog-"));
afterAll(() => rmSync(root, { recursive: true, force: true }));

function tool(dir: string, name: string, body: string, mode = 0o755) {
  mkdirSync(dir, { recursive: true });
  const file = join(dir, name);
  writeFileSync(file, body);
  chmodSync(file, mode);
  return file;
}

const header = (name: string, extra = "") =>
  `#!/bin/sh\n# ollie:tool ${name}\n# ollie:description Does ${name} things.\n${extra}echo ok\n`;

describe("the tool catalog", () => {
  it("reads headers: compact params, parallel read, tier, timeout and cache", async () => {
    const dir = join(root, "good");
    tool(
      dir,
      "file_read",
      header(
        "file_read",
        [
          "# ollie:param path string required  The file to read",
          "# ollie:param lines integer[]  Which lines",
          "# ollie:parallel read",
          "# ollie:tier cold",
          "# ollie:timeout 30",
          "# ollie:cache path",
          "",
        ].join("\n"),
      ),
    );
    tool(
      dir,
      "py_tool",
      `#!/usr/bin/env python3\n# ollie:tool py_tool\n# ollie:description In Python.\n# ollie:schema {"type": "object",\n# ollie:schema  "properties": {"x": {"type": "number"}}}\nprint(1)\n`,
    );
    const catalog = new ToolCatalog([dir]);
    const tools = await catalog.tools();
    expect(tools.get("file_read")?.meta).toEqual({
      name: "file_read",
      description: "Does file_read things.",
      parameters: {
        type: "object",
        properties: {
          path: { type: "string", description: "The file to read" },
          lines: { type: "array", items: { type: "integer" }, description: "Which lines" },
        },
        required: ["path"],
      },
      parallelRead: true,
      tier: "cold",
      timeoutMs: 30_000,
      cacheArgument: "path",
    });
    expect(tools.get("py_tool")?.meta).toMatchObject({
      parameters: { type: "object", properties: { x: { type: "number" } } },
      parallelRead: false,
      tier: "hot",
      timeoutMs: 120_000,
    });
    expect(await catalog.broken()).toEqual([]);
  });

  it("reads a compiled tool's sidecar", async () => {
    const dir = join(root, "sidecar");
    const file = tool(dir, "fastgrep", "\u007fELF binary");
    writeFileSync(
      `${file}.meta.json`,
      JSON.stringify({ name: "fastgrep", description: "Greps fast.", parallel: "read" }),
    );
    expect((await new ToolCatalog([dir]).get("fastgrep"))?.meta.parallelRead).toBe(true);
  });

  it("places a problem in a sidecar on its line, and names an unknown field with the known ones", async () => {
    const dir = join(root, "sidecar-lines");
    const file = tool(dir, "slowgrep", "\u007fELF binary");
    writeFileSync(
      `${file}.meta.json`,
      '{\n  "name": "slowgrep",\n  "description": "Greps.",\n  "timeout": "slow",\n  "colour": 1\n}\n',
    );
    const [broken] = await new ToolCatalog([dir]).broken();
    expect(broken?.reason).toMatch(
      /slowgrep\.meta\.json:4:14: timeout: .+; colour: unknown key \(the keys are: name, description, parameters, parallel, tier, timeout, cache, companion, background\)$/,
    );
  });

  it("reports broken tools (one that lost its executable bit too) with file and reason, skips them, and skips files that are not tools", async () => {
    const dir = join(root, "broken");
    tool(dir, "bad_name", header("Bad-Name"));
    tool(dir, "no_description", "#!/bin/sh\n# ollie:tool no_description\necho\n");
    tool(dir, "bad_param", header("bad_param", "# ollie:param x sometype  what\n"));
    tool(dir, "bad_field", header("bad_field", "# ollie:colour blue\n"));
    tool(dir, "bad_schema", header("bad_schema", "# ollie:schema {not json\n"));
    const sidecar = tool(dir, "bad_sidecar", "binary");
    writeFileSync(`${sidecar}.meta.json`, "{");
    tool(dir, "not_a_tool", "#!/bin/sh\necho plain script\n");
    tool(dir, "not_executable", header("not_executable"), 0o644);
    tool(dir, "fine", header("fine"));
    const catalog = new ToolCatalog([dir]);
    expect([...(await catalog.tools()).keys()]).toEqual(["fine"]);
    const reasons = Object.fromEntries(
      (await catalog.broken()).map((b) => [b.file.slice(dir.length + 1), b.reason]),
    );
    expect(reasons).toEqual({
      bad_name: "name: a tool name is lower case letters, digits and _, up to 64",
      no_description: "description: Invalid input: expected string, received undefined",
      bad_param: "header line 4: 'sometype' is not a JSON Schema type",
      bad_field: "header line 4: unknown field 'ollie:colour'",
      bad_schema: "header line 4: ollie:schema is not JSON: expected a key in double quotes",
      bad_sidecar: expect.stringMatching(
        /bad_sidecar\.meta\.json:1:2: not JSON: expected a key in double quotes$/,
      ),
      not_executable: `describes the tool 'not_executable' but is not executable (chmod +x ${dir}/not_executable)`,
    });
    chmodSync(join(dir, "not_executable"), 0o755);
    expect([...(await catalog.tools()).keys()]).toEqual(["fine", "not_executable"]);
    expect((await catalog.broken()).map((b) => b.file)).not.toContain(join(dir, "not_executable"));
  });

  it("lets an earlier directory win a name, and notices changes", async () => {
    const first = join(root, "first");
    const second = join(root, "second");
    tool(first, "shell", header("shell"));
    tool(second, "shell", header("shell"));
    const catalog = ToolCatalog.fromSearchPath(`${first}:${second}:/no/such/dir`);
    expect((await catalog.get("shell"))?.file).toBe(join(first, "shell"));
    expect((await catalog.broken()).map((b) => b.reason)).toEqual([
      `another tool named 'shell' comes first: ${join(first, "shell")}`,
    ]);

    const added = tool(second, "grep", header("grep"));
    expect((await catalog.get("grep"))?.meta.description).toBe("Does grep things.");
    writeFileSync(added, header("grep").replace("Does grep things.", "Searches text."));
    utimesSync(added, new Date(), new Date(Date.now() + 5000));
    expect((await catalog.get("grep"))?.meta.description).toBe("Searches text.");
    rmSync(added);
    expect(await catalog.get("grep")).toBeUndefined();
  });
});

describe("finding a tool for a call", () => {
  /** Dates files and directories back, past the time an mtime takes to vouch for what a look saw. */
  const settle = (...paths: string[]) => {
    const then = new Date("2026-01-01T00:00:00Z");
    for (const p of paths) utimesSync(p, then, then);
  };

  it("finds what a full look finds, and sees a tool changed, shadowed, disabled or removed", async () => {
    const first = join(root, "find-first");
    const second = join(root, "find-second");
    mkdirSync(first, { recursive: true });
    const file = tool(second, "grep", header("grep"));
    settle(first, second, file);
    const catalog = new ToolCatalog([first, second]);
    expect((await catalog.find("grep"))?.file).toBe(file);
    expect(await catalog.find("grep")).toEqual((await catalog.tools()).get("grep"));

    writeFileSync(file, header("grep").replace("Does grep things.", "Searches text."));
    expect((await catalog.find("grep"))?.meta.description).toBe("Searches text.");

    settle(file, second);
    await catalog.tools();
    const earlier = tool(first, "grep", header("grep", "# ollie:tier cold\n"));
    expect((await catalog.find("grep"))?.file).toBe(earlier);

    settle(first, earlier);
    await catalog.tools();
    chmodSync(earlier, 0o644);
    expect((await catalog.find("grep"))?.file).toBe(file);

    settle(first, second, file);
    await catalog.tools();
    rmSync(file);
    expect(await catalog.find("grep")).toBeUndefined();
    expect(await catalog.find("nothing")).toBeUndefined();
  });

  it("costs a few stats: it does not list the directories again while their mtimes hold", async () => {
    const first = join(root, "stat-first");
    const second = join(root, "stat-second");
    mkdirSync(first, { recursive: true });
    const file = tool(second, "sed", header("sed"));
    settle(first, second, file);
    const catalog = new ToolCatalog([first, second]);
    expect((await catalog.find("sed"))?.file).toBe(file);
    // A tool slipped into an earlier directory with its mtime put back: only a full look sees it.
    const hidden = tool(first, "sed", header("sed"));
    settle(first, hidden);
    expect((await catalog.find("sed"))?.file).toBe(file);
    expect((await catalog.tools()).get("sed")?.file).toBe(hidden);
    expect((await catalog.find("sed"))?.file).toBe(hidden);
  });

  it("takes a directory of the path that does not exist as unchanged until it appears", async () => {
    const missing = join(root, "missing-yet");
    const present = join(root, "present");
    const file = tool(present, "cut", header("cut"));
    settle(present, file);
    const catalog = new ToolCatalog([missing, present]);
    expect((await catalog.find("cut"))?.file).toBe(file);
    expect((await catalog.find("cut"))?.file).toBe(file);
    const earlier = tool(missing, "cut", header("cut"));
    expect((await catalog.find("cut"))?.file).toBe(earlier);
  });

  it("looks again while a directory is too recent for its mtime to vouch for it", async () => {
    const dir = join(root, "recent");
    const file = tool(dir, "awk", header("awk"));
    const catalog = new ToolCatalog([dir]);
    expect((await catalog.find("awk"))?.file).toBe(file);
    // Within the same tick of a coarse clock a new file need not move the directory's mtime.
    const mtime = new Date();
    utimesSync(dir, mtime, mtime);
    // Listed first, so a look finds it before the first one.
    const earlier = tool(dir, "a-awk", header("awk"));
    utimesSync(dir, mtime, mtime);
    expect((await catalog.find("awk"))?.file).toBe(earlier);
  });
});
