import { mkdtempSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, describe, expect, it } from "vitest";
import { fillWords, Notifier, readNotifyConf, splitWords } from "./notify.js";

const dir = mkdtempSync(join(tmpdir(), "olliesrv-notify-"));
afterAll(() => rmSync(dir, { recursive: true, force: true }));

const notice = {
  id: 7,
  agent: "s1.main",
  session: "s1",
  operation: "apt_install",
  command: "apt-get install -y ripgrep",
  reason: "it needs $(rm -rf ~) `ripgrep`;\n\u001b[31m now",
  cwd: "/home/glenda/src",
};

function logger() {
  const lines: string[] = [];
  return {
    lines,
    log: {
      info: (m: string) => lines.push(`info ${m}`),
      warn: (m: string) => lines.push(`warn ${m}`),
      debug: (m: string) => lines.push(`debug ${m}`),
    },
  };
}

describe("notify.conf", () => {
  it("splits a command into words with quotes, and nothing else a shell would do", () => {
    expect(splitWords(`notify-send "ollie" "{agent} asks: \\"{reason}\\"" '$HOME' a\\ b $(x) ;`)).toEqual([
      "notify-send",
      "ollie",
      '{agent} asks: "{reason}"',
      "$HOME",
      "a b",
      "$(x)",
      ";",
    ]);
    expect(() => splitWords(`echo "open`)).toThrow('a " is not closed');
  });

  it("puts each value inside its word, on one line, whatever it holds", () => {
    expect(fillWords(["notify-send", "{agent} asks to {operation}: {reason}", "{nope}"], notice)).toEqual([
      "notify-send",
      "s1.main asks to apt_install: it needs $(rm -rf ~) `ripgrep`; [31m now",
      "{nope}",
    ]);
  });

  it("reports the lines it cannot use, and keeps the good one", async () => {
    const file = join(dir, "bad.conf");
    writeFileSync(
      file,
      "# comment\nnonsense\ndinner = echo hi\nbypass = echo {agnet}\nbypass = echo 'open\nbypass = echo {id}\n",
    );
    const { lines, log } = logger();
    const conf = await readNotifyConf(file, log.warn);
    expect(conf.get("bypass")).toEqual({ line: 6, words: ["echo", "{id}"] });
    expect(lines).toEqual([
      `warn ${file}:2: expected EVENT = COMMAND`,
      `warn ${file}:3: no event 'dinner' (there is: bypass)`,
      `warn ${file}:4: bypass knows no {agnet} (it has {id}, {agent}, {session}, {operation}, {command}, {reason}, {cwd})`,
      `warn ${file}:5: a ' is not closed`,
    ]);
    expect(await readNotifyConf(join(dir, "missing.conf"), log.warn)).toEqual(new Map());
  });

  it("runs the command with its arguments as given, and logs a failure without throwing", async () => {
    const out = join(dir, "args.txt");
    const script = join(dir, "record.sh");
    writeFileSync(script, `#!/bin/sh\nprintf '[%s]\\n' "$@" > '${out}'\n`, { mode: 0o755 });
    const file = join(dir, "notify.conf");
    writeFileSync(file, `bypass = ${script} "{agent}: {reason}" -- {command}\n`);
    const { lines, log } = logger();
    await new Notifier({ file, log }).bypass(notice);
    expect(readFileSync(out, "utf8")).toBe(
      "[s1.main: it needs $(rm -rf ~) `ripgrep`; [31m now]\n[--]\n[apt-get install -y ripgrep]\n",
    );
    expect(lines).toEqual([`debug ${file}:1: notified of bypass request 7`]);

    writeFileSync(file, "bypass = sh -c 'echo no bus >&2; exit 3'\n");
    await new Notifier({ file, log }).bypass(notice);
    writeFileSync(file, `bypass = ${join(dir, "no-such-notifier")} {id}\n`);
    await new Notifier({ file, log }).bypass(notice);
    expect(lines.slice(1)).toEqual([
      `warn ${file}:1: the bypass notification for request 7 (sh) exited 3: no bus`,
      expect.stringMatching(
        new RegExp(
          `^warn ${file}:1: the bypass notification for request 7 \\(.*no-such-notifier\\) .*ENOENT`,
        ),
      ),
    ]);
  });
});
