import { existsSync, readFileSync } from "node:fs";
import { dirname, join } from "node:path";
import { fileURLToPath } from "node:url";

/** The directory of this package (it holds `native/` and `bin/`), wherever the code runs from. */
export function packageRoot(): string {
  let dir = dirname(fileURLToPath(import.meta.url));
  for (;;) {
    const manifest = join(dir, "package.json");
    if (existsSync(manifest) && JSON.parse(readFileSync(manifest, "utf8")).name === "@ollie/sandbox")
      return dir;
    const parent = dirname(dir);
    if (parent === dir) throw new Error("cannot find the @ollie/sandbox package directory");
    dir = parent;
  }
}
