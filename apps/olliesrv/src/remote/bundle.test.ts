import { mkdirSync, mkdtempSync, readdirSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, describe, expect, it } from "vitest";
import { stageBundle } from "./bundle.js";
import { configBundle } from "./config-bundle.js";

const root = mkdtempSync(join(tmpdir(), "ollie-bundle-"));
afterAll(() => rmSync(root, { recursive: true, force: true }));

describe("stageBundle", () => {
  it("stages the configuration of a fresh install (no tools, no policies) as bundle.json alone", async () => {
    const config = join(root, "fresh", "ollie");
    mkdirSync(config, { recursive: true });
    const bundle = await configBundle(config);
    expect(bundle.files).toEqual([]);
    const staged = await stageBundle(bundle, join(root, "cache"));
    expect(readdirSync(staged)).toEqual(["bundle.json"]);
    expect(JSON.parse(readFileSync(join(staged, "bundle.json"), "utf8"))).toEqual(bundle.manifest);
    // Staged once: a second stage finds it.
    expect(await stageBundle(bundle, join(root, "cache"))).toBe(staged);
  });

  it("names a bundle by its content: a tool added makes another", async () => {
    const config = join(root, "tooled", "ollie");
    mkdirSync(join(config, "tools"), { recursive: true });
    const empty = await configBundle(config);
    writeFileSync(join(config, "tools", "hello"), "#!/bin/sh\necho hello\n", { mode: 0o755 });
    const tooled = await configBundle(config);
    expect(tooled.hash).not.toBe(empty.hash);
    const staged = await stageBundle(tooled, join(root, "cache"));
    expect(readFileSync(join(staged, "ollie", "tools", "hello"), "utf8")).toBe("#!/bin/sh\necho hello\n");
  });
});
