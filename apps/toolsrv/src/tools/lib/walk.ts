import { readdir } from "node:fs/promises";
import { join, relative } from "node:path";

/** Directories never searched: version-control data. */
const SKIP = new Set([".git", ".hg", ".svn"]);

/** Every file under `root`, as paths relative to it, in sorted order; stops after `limit`. */
export async function* walkFiles(root: string, limit = 100_000): AsyncGenerator<string> {
  let seen = 0;
  const stack = [root];
  while (stack.length > 0) {
    const dir = stack.pop()!;
    const entries = await readdir(dir, { withFileTypes: true }).catch(() => []);
    entries.sort((a, b) => (a.name < b.name ? -1 : a.name > b.name ? 1 : 0));
    const subdirs: string[] = [];
    for (const e of entries) {
      const full = join(dir, e.name);
      if (e.isDirectory()) {
        if (!SKIP.has(e.name)) subdirs.push(full);
      } else if (e.isFile()) {
        yield relative(root, full);
        if (++seen >= limit) return;
      }
    }
    // Pushed last first, so the directories are visited in order.
    for (let i = subdirs.length - 1; i >= 0; i--) stack.push(subdirs[i]!);
  }
}

/** A glob (`*`, `?`, `**`, `{a,b}`, `[abc]`) as a regular expression over `/`-separated paths. */
export function globToRegExp(glob: string): RegExp {
  let re = "";
  for (let i = 0; i < glob.length; i++) {
    const c = glob[i]!;
    if (c === "*" && glob[i + 1] === "*") {
      const slash = glob[i + 2] === "/";
      re += slash ? "(?:.*/)?" : ".*";
      i += slash ? 2 : 1;
    } else if (c === "*") re += "[^/]*";
    else if (c === "?") re += "[^/]";
    else if (c === "{") {
      const end = glob.indexOf("}", i);
      if (end < 0) re += "\\{";
      else {
        re += `(?:${glob
          .slice(i + 1, end)
          .split(",")
          .map((alt) => alt.replace(/[.+^$()|\\]/g, "\\$&"))
          .join("|")})`;
        i = end;
      }
    } else if (c === "[") {
      const end = glob.indexOf("]", i);
      if (end < 0) re += "\\[";
      else {
        re += `[${glob.slice(i + 1, end).replace(/^!/, "^")}]`;
        i = end;
      }
    } else re += c.replace(/[.+^$()|\\\]]/g, "\\$&");
  }
  return new RegExp(`^${re}$`);
}
