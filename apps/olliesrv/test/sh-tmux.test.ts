import { existsSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { execa, execaSync } from "execa";
import { afterAll, beforeAll, describe, expect, it, vi } from "vitest";
import { askerFixture } from "./asker-fixture.js";
import { OLLIE, type Ollie, startOllie } from "./harness.js";
import { ollieCommand } from "./ollie-cli.js";

/**
 * `ollie sh` as a person sees it: in tmux, a real terminal, keys sent with send-keys and the screen read
 * with capture-pane, against the real daemon and the mock model. Without tmux (CI installs it), skipped,
 * saying so.
 */
const tmuxFound = execaSync("sh", ["-c", "command -v tmux"], { reject: false }).exitCode === 0;
if (!tmuxFound) console.warn("tmux is not installed: ollie sh's terminal tests are skipped");

let o: Ollie;
let marker: string;
beforeAll(async () => {
  o = await startOllie("olliesrv-tmux-", {
    setup: (config) => {
      marker = askerFixture(config, ["shell"]);
    },
  });
});
afterAll(async () => {
  await o?.stop();
  await o?.remove();
});

const ollie = ollieCommand(() => o);

/** `ollie sh ARGS` in a detached tmux session of its own server, 100 columns by 40 rows. */
async function inTmux(args: string) {
  const server = `ollie-sh-${process.pid}-${Math.random().toString(36).slice(2, 8)}`;
  const script = join(o.root, `${server}.sh`);
  const exports = Object.entries({ ...o.env, TERM: "xterm-256color" })
    .map(([k, v]) => `export ${k}='${String(v).replaceAll("'", "'\\''")}'`)
    .join("\n");
  writeFileSync(
    script,
    `${exports}\ncd '${o.work}'\nexec '${process.execPath}' '${OLLIE}' -a '${o.address}' ${args}\n`,
  );
  const tmux = (...a: string[]) => execa("tmux", ["-L", server, "-f", "/dev/null", ...a], { env: o.env });
  await tmux("new-session", "-d", "-s", "sh", "-x", "100", "-y", "40", `sh ${script}`);
  await tmux("set-option", "-t", "sh", "remain-on-exit", "on");
  const t = {
    /** The screen and its scrollback, as text (`colour`: with its escape sequences). */
    screen: async (colour = false) =>
      (await tmux("capture-pane", "-p", "-J", ...(colour ? ["-e"] : []), "-t", "sh", "-S", "-400")).stdout
        .split("\n")
        .map((line) => line.trimEnd())
        .join("\n"),
    /** Waits until `text` is on the screen, after the `after`-th time it showed `mark`; returns the screen. */
    until: async (text: string | RegExp, colour = false) => {
      let screen = "";
      await vi.waitFor(
        async () => {
          screen = await t.screen(colour);
          if (typeof text === "string") expect(screen, screen).toContain(text);
          else expect(screen, screen).toMatch(text);
        },
        { timeout: 20_000, interval: 50 },
      );
      return screen;
    },
    keys: (...keys: string[]) => tmux("send-keys", "-t", "sh", ...keys),
    /** Types `text` as it is (no key names), then Enter. */
    line: async (text: string) => {
      await tmux("send-keys", "-t", "sh", "-l", text);
      await tmux("send-keys", "-t", "sh", "Enter");
    },
    close: () => tmux("kill-server").catch(() => {}),
  };
  return t;
}

// biome-ignore lint/suspicious/noControlCharactersInRegex: escape sequences are what it finds
const BOLD_BOLD = /\u001b\[1mbold\u001b\[(22|0)m/;

describe.skipIf(!tmuxFound)("ollie sh in a real terminal (tmux)", () => {
  it("renders Markdown, shows a tool call with its arguments and a short result that /last and Ctrl-O expand", async () => {
    const id = (await ollie("new", "--agent", "coding")).stdout.trim();
    const lines = Array.from({ length: 12 }, (_, i) => `line ${i + 1} of the output`);
    o.mock.enqueue(
      { toolCalls: [{ name: "shell", arguments: { command: `printf '${lines.join("\\n")}\\n'` } }] },
      {
        text: "# Findings\n\nThe output has **bold** news and `code`:\n\n- first point\n- second point\n\n```sh\necho done\n```\n\nThat is all.",
      },
    );
    const t = await inTmux(`sh ${id}`);
    try {
      await t.until(/^»$/m);
      await t.line("what does it print?");
      let screen = await t.until("[done]");
      // The call with its arguments, its result as one line and how to see the rest.
      expect(screen).toContain(`→ shell {"command":"printf 'line 1 of the output`);
      expect(screen).toMatch(/← shell: line 1 of the output \(12 lines\)\n\s+\/last or Ctrl-O shows it all/);
      expect(screen).not.toMatch(/^line 7 of the output$/m);
      // Rendered: no Markdown marks left, the heading's text and the list's items, emphasis in colour.
      expect(screen).toContain("Findings");
      expect(screen).not.toContain("# Findings");
      expect(screen).not.toContain("**");
      expect(screen).not.toContain("```");
      expect(screen).toContain("The output has bold news and code:");
      expect(screen).toMatch(/\* first point\n\s+\* second point/);
      expect(await t.screen(true)).toMatch(BOLD_BOLD);
      // Where the agent stands, on the turn's last line.
      expect(screen).toMatch(
        /\[done\] \d+ in \/ \d+ out tokens · \$0\.0000 · \S+ │ coding · mock-model · context \S+ of 33k \(\d+%\) · \$0\.0000 session/,
      );

      await t.line("/last");
      screen = await t.until("line 12 of the output");
      expect(screen).toContain("← shell, all of it:");
      const expanded = screen.split("\n").filter((l) => /^line \d+ of the output$/.test(l));
      expect(expanded).toHaveLength(12);
      await t.keys("C-o");
      await vi.waitFor(
        async () => {
          const again = (await t.screen()).split("\n").filter((l) => /^line \d+ of the output$/.test(l));
          expect(again).toHaveLength(24);
        },
        { timeout: 20_000, interval: 50 },
      );
    } finally {
      await t.close();
    }
  });

  it("asks a bypass request inline: y approves it, and the turn goes on", async () => {
    const id = (await ollie("new", "--agent", "asker")).stdout.trim();
    o.mock.enqueue(
      {
        toolCalls: [
          { name: "bypass_request", arguments: { operation: "touch_marker", reason: "a marker outside" } },
        ],
      },
      { text: "The marker is made." },
    );
    const t = await inTmux(`sh ${id}`);
    try {
      await t.until(/^»$/m);
      await t.line("make the marker");
      const screen = await t.until(/^approve \d+\? \[y\/n\/a\]$/m);
      expect(screen).toContain(`${id}.main asks to run outside the sandbox (bypass request `);
      expect(screen).toContain(`  touch ${marker}`);
      expect(screen).toContain("  because: a marker outside");
      expect(existsSync(marker)).toBe(false);
      await t.line("y");
      await t.until(/bypass request \d+: approved by \S+/);
      await t.until("The marker is made.");
      await t.until("[done]");
      expect(existsSync(marker)).toBe(true);
      expect((await ollie("bypass")).stdout).toBe("");
    } finally {
      await t.close();
    }
  });
});
