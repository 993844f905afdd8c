import { mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { pathToFileURL } from "node:url";
import { execa } from "execa";
import { afterAll, describe, expect, it } from "vitest";

const dir = mkdtempSync(join(tmpdir(), "backends-entry-"));
afterAll(() => rmSync(dir, { recursive: true, force: true }));

// A resolve hook that reports every package a program loads, by its bare name.
writeFileSync(
  join(dir, "hooks.mjs"),
  `export async function resolve(specifier, context, next) {
  if (!specifier.startsWith(".") && !specifier.startsWith("node:") && !specifier.startsWith("file:"))
    process.stderr.write("loads " + specifier + "\\n");
  return next(specifier, context);
}
`,
);
writeFileSync(
  join(dir, "register.mjs"),
  `import { register } from "node:module";\nregister(${JSON.stringify(pathToFileURL(join(dir, "hooks.mjs")).href)});\n`,
);

/** The packages importing `entry` (a file of this package's build) loads. */
async function packagesLoadedBy(entry: string): Promise<string[]> {
  const url = pathToFileURL(join(import.meta.dirname, "..", "dist", entry)).href;
  const run = await execa(
    process.execPath,
    [
      "--import",
      join(dir, "register.mjs"),
      "--input-type=module",
      "-e",
      `await import(${JSON.stringify(url)});`,
    ],
    { reject: false },
  );
  expect(run.exitCode, run.stderr).toBe(0);
  return [...new Set(run.stderr.split("\n").flatMap((l) => (l.startsWith("loads ") ? [l.slice(6)] : [])))];
}

describe("what importing the package loads", () => {
  it("loads no process spawning from the root entry, nor @ollie/sandbox: a key_cmd loads them when it runs", async () => {
    const loaded = await packagesLoadedBy("index.js");
    expect(loaded).toContain("undici");
    expect(loaded.filter((p) => p.startsWith("execa") || p.startsWith("@ollie/sandbox"))).toEqual([]);
  });
});
