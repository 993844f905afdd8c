import { execa } from "execa";

const BASH_ENV = { PATH: "/usr/bin:/bin", HISTFILE: "/dev/null" };

/**
 * What bash says when `commands` are pasted into an interactive bash, without running them ("" when it says
 * nothing). An interactive bash expands history in each line as it reads it: a `!` that names no event stops
 * the line ("event not found"), and one that does is silently replaced (bash then echoes the line it made). A
 * non-interactive bash given `-H -o history` and the lines on standard input expands each line the same way
 * (`bash -c` would not: its text is read whole before history is on), and `-n` parses what it made without
 * running anything.
 */
export async function pasteComplaints(commands: string): Promise<string> {
  const bash = await execa("bash", ["--norc", "--noprofile", "-H", "-o", "history", "-n", "-s"], {
    input: commands,
    env: BASH_ENV,
    extendEnv: false,
    reject: false,
  });
  return complaints(bash);
}

/**
 * What the shell its `#!` line names says when it parses a script file (`-n`). A script is saved and run, not
 * typed: a shell reading a script expands no history.
 */
export async function scriptComplaints(script: string): Promise<string> {
  const shell = /^#!.*\bbash\b/.test(script) ? "bash" : "sh";
  return complaints(
    await execa(shell, ["-n"], { input: script, env: BASH_ENV, extendEnv: false, reject: false }),
  );
}

function complaints({ stderr, exitCode }: { stderr: string; exitCode?: number }): string {
  return exitCode === 0 ? stderr : `${stderr}\n(exit status ${exitCode})`.trimStart();
}
