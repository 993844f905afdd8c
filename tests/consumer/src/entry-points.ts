import { mkdirSync, readFileSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { publishablePackages } from "./pack-workspace.js";

/** The module that imports every entry point of every package, relative to the consumer project. */
export const ENTRY_POINTS = { source: "src/entry-points.ts", output: "out/entry-points.js" };

/**
 * Writes a module importing every entry point of every installed package, as a consumer writes it; run, it
 * prints how many names each exports.
 */
export function writeEntryPoints(projectDir: string): void {
  const entries = publishablePackages().flatMap(({ name }) => {
    const manifest = JSON.parse(readFileSync(join(projectDir, "node_modules", name, "package.json"), "utf8"));
    return Object.keys(manifest.exports ?? {})
      .filter((key) => key !== "./package.json")
      .map((key) => (key === "." ? name : `${name}/${key.slice(2)}`));
  });
  mkdirSync(join(projectDir, "src"), { recursive: true });
  writeFileSync(
    join(projectDir, ENTRY_POINTS.source),
    `${entries.map((e, i) => `import * as entry${i} from "${e}";`).join("\n")}
const loaded: Record<string, number> = {
${entries.map((e, i) => `  "${e}": Object.keys(entry${i}).length,`).join("\n")}
};
console.log(JSON.stringify(loaded));
`,
  );
}
