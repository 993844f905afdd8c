import { mkdirSync, mkdtempSync, realpathSync, rmSync, symlinkSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { execa } from "execa";
import { afterAll, describe, expect, it } from "vitest";
import { resolvePrompt } from "./prompt-commands.js";
import { PromptCommandError, PromptFileError } from "./prompt-errors.js";
import type { PromptPlace, PromptRunner } from "./prompt-runner.js";

const root = realpathSync(mkdtempSync(join(tmpdir(), "agent-core-prompt-file-")));
const cwd = join(root, "work");
const outside = join(root, "secret.key");
mkdirSync(join(cwd, "docs"), { recursive: true });
writeFileSync(outside, "the owner's key\n");
writeFileSync(join(cwd, "docs", "rules.md"), "Rules inside.\n");
afterAll(() => rmSync(root, { recursive: true, force: true }));

const where = { cwd, ollieDir: join(root, "ollie") };
const failure = (prompt: string): Promise<Error> =>
  resolvePrompt(prompt, where).then(
    (text) => {
      throw new Error(`resolved to '${text}'`);
    },
    (e: unknown) => e as Error,
  );

describe("an @file line read by the default runner", () => {
  it("follows a link that stays in the working directory", async () => {
    symlinkSync("docs/rules.md", join(cwd, "RULES.md"));
    symlinkSync("docs", join(cwd, "documents"));
    expect(await resolvePrompt("@RULES.md\n@documents/rules.md", where)).toBe("Rules inside.\nRules inside.");
  });

  it("refuses a planted link out of the working directory: to a file, through a directory, by ..", async () => {
    symlinkSync(outside, join(cwd, "AGENTS.md"));
    symlinkSync(root, join(cwd, "up"));
    for (const line of ["@AGENTS.md", "@up/secret.key", "@docs/../up/secret.key"]) {
      const error = await failure(line);
      expect(error).toBeInstanceOf(PromptFileError);
      expect(error.message).toMatch(/leads out of the working directory .* through a symbolic link$/);
      expect(error.message).not.toContain("owner's key");
    }
    // A name the profile itself gives outside the directory is the profile author's to choose.
    expect(await resolvePrompt(`@${outside}`, where)).toBe("the owner's key");
  });

  it("refuses a FIFO at once, and a file past 1 MiB", async () => {
    await execa("mkfifo", [join(cwd, "pipe.md")]);
    const fifo = await failure("@pipe.md");
    expect(fifo.message).toBe(`prompt file '${join(cwd, "pipe.md")}' is not a regular file`);
    writeFileSync(join(cwd, "huge.md"), Buffer.alloc(1024 * 1024 + 1, "a"));
    expect((await failure("@huge.md")).message).toMatch(/is larger than 1024 KiB$/);
  });
});

describe("a prompt command run by the default runner", () => {
  it("fails when it prints more than 1 MiB", async () => {
    const error = await failure("!head -c 1100000 /dev/zero");
    expect(error).toBeInstanceOf(PromptCommandError);
    expect(error.message).toMatch(/printed more than 1024 KiB$/);
  });
});

describe("a runner of the program's own", () => {
  it("runs every command and reads every file, with the place they run in", async () => {
    const seen: string[] = [];
    const runner: PromptRunner = {
      command: async (command: string, place: PromptPlace) => {
        seen.push(`command ${command} in ${place.cwd} (${place.env.PWD}, ${place.timeoutMs} ms)`);
        return `ran ${command}\n`;
      },
      file: async (file: string) => {
        seen.push(`file ${file}`);
        return "read\n";
      },
    };
    const text = await resolvePrompt("!one\n@docs/rules.md\nplain", { ...where, runner, timeoutMs: 5000 });
    expect(text).toBe("ran one\nread\nplain");
    expect(await resolvePrompt(["two", "three"], { ...where, runner })).toBe("ran two\nran three\n");
    expect(seen).toEqual([
      `command one in ${cwd} (${cwd}, 5000 ms)`,
      `file ${join(cwd, "docs", "rules.md")}`,
      `command two in ${cwd} (${cwd}, 30000 ms)`,
      `command three in ${cwd} (${cwd}, 30000 ms)`,
    ]);
  });
});
