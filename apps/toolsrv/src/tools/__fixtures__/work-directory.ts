import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { dirname, join } from "node:path";
import { fileURLToPath } from "node:url";
import { execa } from "execa";

/** The default tools as `pnpm build` leaves them. */
const BUILT = fileURLToPath(new URL("../../../tools", import.meta.url));

/** A scratch directory to lay out file trees in and run the built tools on. */
export function workDirectory(prefix: string) {
  const root = mkdtempSync(join(tmpdir(), prefix));
  return {
    root,
    /** Writes files under the root, each empty unless given text. */
    files(...entries: Array<string | [string, string]>) {
      for (const entry of entries) {
        const [name, text] = typeof entry === "string" ? [entry, ""] : entry;
        mkdirSync(dirname(join(root, name)), { recursive: true });
        writeFileSync(join(root, name), text);
      }
    },
    /**
     * Runs a built tool there as toolsrv would, JSON arguments on stdin, and kills it after 10 seconds so
     * that a hang fails the test rather than stalling it.
     */
    async run(tool: string, args: Record<string, unknown>) {
      const r = await execa(join(BUILT, tool), [], {
        cwd: root,
        input: JSON.stringify(args),
        env: { PATH: process.env.PATH },
        extendEnv: false,
        reject: false,
        stripFinalNewline: false,
        timeout: 10_000,
      });
      return { out: String(r.stdout), err: String(r.stderr).trim(), code: r.exitCode, timedOut: r.timedOut };
    },
    remove: () => rmSync(root, { recursive: true, force: true }),
  };
}
