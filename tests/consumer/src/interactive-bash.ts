import { execa } from "execa";

/** An interactive bash that commands were pasted into. */
export interface PastedBash {
  /** Resolves once what bash runs has printed `text` on `stream`; rejects if bash ends first. */
  shown(text: string, stream?: "stdout" | "stderr"): Promise<void>;
  /** Ends the paste: bash exits after the last command it was given (`lines`, if any, first). */
  end(lines?: string): Promise<PasteResult>;
}

/** How bash ended (its status: the failed command's, or 0) and what it printed. */
export interface PasteResult {
  exitCode: number | undefined;
  stdout: string;
  stderr: string;
}

/**
 * Pastes `commands` into an interactive bash, as a terminal would: `-i` (so aliases work and every line is
 * history-expanded), no rc files, no history file. Two things differ from a person's terminal, and neither
 * changes what a command does: `PS1` and `PS2` are empty, and `-e` makes the first command that fails end
 * bash with its status. bash echoes each line it reads, and its complaints, on stderr.
 */
export function pasteIntoBash(
  commands: string,
  options: { cwd: string; env: Record<string, string> },
): PastedBash {
  const bash = execa("bash", ["--norc", "--noprofile", "-i", "-e"], {
    cwd: options.cwd,
    env: { ...options.env, PS1: "", PS2: "", HISTFILE: "/dev/null" },
    extendEnv: false,
    reject: false,
    stdin: "pipe",
  });
  bash.stdin.write(commands);
  const printed = { stdout: "", stderr: "" };
  const waiting = new Set<() => void>();
  for (const name of ["stdout", "stderr"] as const) {
    bash[name].on("data", (chunk: Buffer) => {
      printed[name] += chunk.toString();
      for (const check of waiting) check();
    });
  }
  return {
    shown: (text, stream = "stdout") =>
      new Promise<void>((resolve, reject) => {
        const check = () => {
          if (!printed[stream].includes(text)) return;
          waiting.delete(check);
          resolve();
        };
        waiting.add(check);
        check();
        bash.then(() =>
          reject(new Error(`bash ended before showing ${JSON.stringify(text)}:\n${printed.stderr}`)),
        );
      }),
    end: async (lines) => {
      bash.stdin.end(lines);
      const { exitCode, stdout, stderr } = await bash;
      return { exitCode, stdout, stderr };
    },
  };
}
