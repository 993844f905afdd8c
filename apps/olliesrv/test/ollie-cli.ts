import { execa } from "execa";
import { expect, vi } from "vitest";
import { OLLIE, type Ollie } from "./harness.js";

/**
 * Runs `ollie ARGS` against the daemon `daemon()` gives (once a test's beforeAll has started it) in its work
 * directory, as a shell would, never rejecting.
 */
export function ollieCommand(daemon: () => Ollie, env: Record<string, string> = {}) {
  return (...args: string[]) => {
    const o = daemon();
    return execa(process.execPath, [OLLIE, "-a", o.address, ...args], {
      cwd: o.work,
      env: { ...o.env, ...env },
      extendEnv: false,
      reject: false,
    });
  };
}

// biome-ignore lint/suspicious/noControlCharactersInRegex: escape sequences are what it removes
const COLOURS = /\u001b\[[0-9;]*m/g;

/**
 * `ollie ARGS` at a pseudo-terminal (util-linux `script`), as a person runs it, after the shell commands
 * `before`: `screen` is all it wrote, `until` waits (generously) for text to appear on it, `type` presses
 * keys.
 */
export function atTerminal(o: Ollie, args: string, env: Record<string, string> = {}, before = "") {
  const child = execa(
    "script",
    ["-qfec", `${before}${process.execPath} ${OLLIE} -a '${o.address}' ${args}`, "/dev/null"],
    {
      cwd: o.work,
      env: { ...o.env, TERM: "xterm-256color", ...env },
      extendEnv: false,
      reject: false,
      stdin: "pipe",
    },
  );
  const t = {
    child,
    screen: "",
    /** The screen without colour codes. */
    get plain() {
      return t.screen.replace(COLOURS, "");
    },
    /** Waits until `text` is on the (uncoloured) screen after `from`; returns where it ends. */
    async until(text: string, from = 0): Promise<number> {
      await vi.waitFor(() => expect(t.plain.slice(from), `the screen so far:\n${t.plain}`).toContain(text), {
        timeout: 20_000,
        interval: 20,
      });
      return t.plain.indexOf(text, from) + text.length;
    },
    type: (keys: string) => child.stdin!.write(keys),
  };
  child.stdout!.on("data", (c: Buffer) => {
    t.screen += c.toString();
  });
  return t;
}
