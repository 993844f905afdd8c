import { execFileSync } from "node:child_process";
import {
  cpSync,
  existsSync,
  mkdirSync,
  mkdtempSync,
  readdirSync,
  readFileSync,
  rmSync,
  writeFileSync,
} from "node:fs";
import { tmpdir } from "node:os";
import { dirname, join } from "node:path";
import { execa, execaSync } from "execa";
import { afterAll, beforeAll, describe, expect, it, vi } from "vitest";
import { MONOREPO } from "./pack-workspace.js";
import { fencedBlocks } from "./readme-code.js";

/**
 * The root README's first run, word for word, as a new user types it: in a fresh checkout (the files git
 * would give a clone, as they stand in this working tree), an empty home, no key, no daemon running, at a
 * real terminal (tmux, as `ollie sh` needs one). Only the machine's package caches are shared (npm's, for
 * `npx pnpm`, and pnpm's store), as on a machine that has installed a project before: the test is of the
 * commands, not of the network. Without tmux (CI installs it), skipped, saying so.
 */
const tmuxFound = execaSync("sh", ["-c", "command -v tmux"], { reject: false }).exitCode === 0;
if (!tmuxFound) console.warn("tmux is not installed: the README's first run is not tried");

/** The bash prompt at the terminal, by which a command is known to have ended (found without its space). */
const PROMPT = "first-run$ ";
const PROMPT_SHOWN = PROMPT.trimEnd();
const root = mkdtempSync(join(tmpdir(), "ollie-first-run-"));
const clone = join(root, "clone");
const namespace = join(root, "ns");

/** Copies the files a clone of this working tree would have: tracked ones and new ones not ignored. */
function freshCheckout(): void {
  const listed = execFileSync("git", ["ls-files", "-z", "--cached", "--others", "--exclude-standard"], {
    cwd: MONOREPO,
    encoding: "utf8",
  });
  for (const file of listed.split("\0").filter((f) => f !== "" && existsSync(join(MONOREPO, f)))) {
    mkdirSync(dirname(join(clone, file)), { recursive: true });
    cpSync(join(MONOREPO, file), join(clone, file));
  }
}

/** What the machine's npm and pnpm would use, read before the test's empty home hides them. */
function packageCaches(): Record<string, string> {
  const npmCache = execFileSync("npm", ["config", "get", "cache"], { encoding: "utf8" }).trim();
  const store = execFileSync(join(MONOREPO, "node_modules", ".bin", "pnpm"), ["store", "path"], {
    cwd: MONOREPO,
    encoding: "utf8",
  }).trim();
  return { npm_config_cache: npmCache, npm_config_store_dir: store };
}

const server = `ollie-first-run-${process.pid}`;
const tmux = (...args: string[]) => execa("tmux", ["-L", server, "-f", join(root, "tmux.conf"), ...args]);

/** The terminal's text, scrollback included. */
const screen = async () =>
  (await tmux("capture-pane", "-p", "-J", "-t", "first", "-S", "-")).stdout
    .split("\n")
    .map((line) => line.trimEnd())
    .join("\n");

/** Waits until the screen shows `text` `times` times; returns the screen. */
async function until(text: string, times = 1, timeout = 60_000): Promise<string> {
  let shown = "";
  await vi.waitFor(
    async () => {
      shown = await screen();
      expect(shown.split(text).length - 1, shown).toBeGreaterThanOrEqual(times);
    },
    { timeout, interval: 100 },
  );
  return shown;
}

/** Types `line` as it is, then Enter. */
async function type(line: string): Promise<void> {
  await tmux("send-keys", "-t", "first", "-l", line);
  await tmux("send-keys", "-t", "first", "Enter");
}

/** The olliesrv and toolsrv processes serving the test's namespace, which `ollie` started. */
function daemons(): number[] {
  return readdirSync("/proc")
    .filter((name) => /^\d+$/.test(name))
    .filter((pid) => {
      try {
        return readFileSync(`/proc/${pid}/cmdline`, "utf8").includes(`unix!${namespace}/`);
      } catch {
        return false;
      }
    })
    .map(Number);
}

beforeAll(() => {
  if (!tmuxFound) return;
  freshCheckout();
  const home = join(root, "home");
  mkdirSync(home);
  mkdirSync(join(root, "tmp"));
  writeFileSync(join(root, "tmux.conf"), "set -g history-limit 50000\n");
  const env = {
    HOME: home,
    PATH: `${dirname(process.execPath)}:/usr/local/bin:/usr/bin:/bin`,
    TERM: "xterm-256color",
    TMPDIR: join(root, "tmp"),
    NAMESPACE: namespace,
    PS1: PROMPT,
    ...(process.env.TURBO_TELEMETRY_DISABLED && {
      TURBO_TELEMETRY_DISABLED: process.env.TURBO_TELEMETRY_DISABLED,
    }),
    ...packageCaches(),
  };
  const exports = Object.entries(env)
    .map(([k, v]) => `export ${k}='${v.replaceAll("'", "'\\''")}'`)
    .join("\n");
  writeFileSync(join(root, "terminal.sh"), `${exports}\ncd '${clone}'\nexec bash --norc --noprofile -i\n`);
});

afterAll(async () => {
  if (tmuxFound) await tmux("kill-server").catch(() => {});
  for (const pid of daemons()) process.kill(pid, "SIGTERM");
  rmSync(root, { recursive: true, force: true });
});

describe.skipIf(!tmuxFound)("the root README's first run, word for word", () => {
  it("from a fresh checkout with no key: set up, init demo, ask, then a turn in ollie sh", {
    timeout: 600_000,
  }, async () => {
    const block = fencedBlocks(join(MONOREPO, "README.md")).find((b) =>
      b.code.startsWith("npm run setup:run"),
    );
    expect(block, "README.md has a block that starts with npm run setup:run").toBeDefined();
    const lines = block!.code.split("\n").filter((line) => line.trim() !== "");
    expect(lines.at(-1)).toMatch(/^ollie sh\b/);

    await tmux(
      "new-session",
      "-d",
      "-s",
      "first",
      "-x",
      "160",
      "-y",
      "50",
      `sh ${join(root, "terminal.sh")}`,
    );
    await until(PROMPT_SHOWN);
    // Each command once the one before it has given the prompt back, as a person would type them.
    for (const [i, line] of lines.entries()) {
      await type(line);
      if (i < lines.length - 1) await until(PROMPT_SHOWN, i + 2, 300_000);
    }
    // ollie ask said which session and profile it made, and so does ollie sh.
    const asked = await until("profile coding", 2);
    expect(asked).toContain("setup: built 12");
    expect(asked).toMatch(/new session \S+, profile coding/);
    expect(asked).toContain("→ file_glob");
    expect(asked).toContain("That was a real tool call");

    // ollie sh, with the session it made here: a turn, and the way out.
    await type("what is in README.md?");
    const talked = await until("[done]");
    expect(talked.slice(talked.lastIndexOf("» what is in README.md?"))).toMatch(/→ file_read .*README\.md/);
    await tmux("send-keys", "-t", "first", "C-d");
    await until(PROMPT_SHOWN, lines.length + 1);
    expect(daemons().length).toBeGreaterThan(0);
  });
});
