import { execa } from "execa";
import type { ConsumerProject } from "./consumer-project.js";

/** tsc's diagnostics, by the file they are in (relative to the project); "" has those in no file. */
export type Diagnostics = Record<string, string[]>;

/** Type-checks (and compiles to `out/`) the consumer project with its own tsconfig. */
export async function typecheck(project: ConsumerProject): Promise<Diagnostics> {
  const tsc = await execa(project.bin("tsc"), ["-p", ".", "--pretty", "false"], {
    cwd: project.dir,
    env: project.env,
    extendEnv: false,
    reject: false,
  });
  const diagnostics: Diagnostics = {};
  let last: string[] | undefined;
  for (const line of `${tsc.stdout}\n${tsc.stderr}`.split("\n")) {
    if (line.trim() === "") continue;
    // A diagnostic's first line names its file; the indented lines after it go with it.
    if (last && /^\s/.test(line)) {
      last[last.length - 1] += `\n${line}`;
      continue;
    }
    const file = /^([^(\s]+)\(\d+,\d+\): /.exec(line)?.[1] ?? "";
    last = diagnostics[file] ??= [];
    last.push(line);
  }
  if (tsc.exitCode !== 0 && Object.keys(diagnostics).length === 0)
    diagnostics[""] = [`tsc exited with ${tsc.exitCode}, saying nothing`];
  return diagnostics;
}
