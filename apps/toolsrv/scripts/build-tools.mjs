// Builds the default tools into tools/: TypeScript tools bundled into one executable file each (the header
// comment that describes the tool kept on top), shell tools copied. Run by `pnpm build`.
import { chmod, copyFile, mkdir, readdir, readFile, rm } from "node:fs/promises";
import { basename, dirname, join } from "node:path";
import { fileURLToPath } from "node:url";
import { build } from "esbuild";

const root = join(dirname(fileURLToPath(import.meta.url)), "..");
const source = join(root, "src", "tools");
const out = join(root, "tools");
await rm(out, { recursive: true, force: true });
await mkdir(out, { recursive: true });

for (const name of (await readdir(source)).sort()) {
  const file = join(source, name);
  if (name.endsWith(".sh")) {
    const target = join(out, basename(name, ".sh"));
    await copyFile(file, target);
    await chmod(target, 0o755);
  } else if (name.endsWith(".ts") && !name.endsWith(".test.ts")) {
    const header = (await readFile(file, "utf8"))
      .split("\n")
      .filter((line) => line.startsWith("// ollie:"))
      .join("\n");
    const target = join(out, basename(name, ".ts"));
    await build({
      entryPoints: [file],
      outfile: target,
      bundle: true,
      platform: "node",
      format: "esm",
      target: "node20",
      // After the header (which must stay on top): a `require` for the CommonJS packages bundled in
      // (vscode-jsonrpc…), whose calls of require("util") an ES module has no other way to answer.
      banner: {
        js: `#!/usr/bin/env node\n${header}\nimport { createRequire as __createRequire } from "node:module";\nconst require = __createRequire(import.meta.url);`,
      },
      logLevel: "warning",
    });
    await chmod(target, 0o755);
  }
}
