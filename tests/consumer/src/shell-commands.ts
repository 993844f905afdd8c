import type { FencedBlock } from "./readme-code.js";

/** The languages of the blocks a reader pastes into a shell (`console`: a transcript, prompts and output). */
export const SHELL_LANGUAGES: ReadonlySet<string> = new Set(["sh", "bash", "shell", "console"]);

/** A block that holds a script file (its first line is `#!`): it is saved and run, not pasted line by line. */
export function isScript(block: FencedBlock): boolean {
  return block.code.startsWith("#!");
}

/**
 * What a reader pastes into a shell from a block. A `console` block is a transcript: its commands are the
 * lines after a `$ ` prompt, with the lines that continue them (after a line ending in `\`, or behind a `> `
 * prompt, as a here-document's are); every other line is output. Any other shell block is commands only.
 */
export function pastedCommands(block: FencedBlock): string {
  if (block.language !== "console") return block.code;
  const commands: string[] = [];
  let inCommand = false;
  let continues = false;
  for (const line of block.code.split("\n")) {
    if (line.startsWith("$ ")) commands.push(line.slice(2));
    else if (inCommand && (continues || line.startsWith("> ")))
      commands.push(line.startsWith("> ") ? line.slice(2) : line);
    else {
      inCommand = false;
      continues = false;
      continue;
    }
    inCommand = true;
    continues = line.endsWith("\\");
  }
  return commands.map((command) => `${command}\n`).join("");
}

/**
 * The lines (of the Markdown file) of a block of commands that begin with a `$ ` prompt: pasted, bash runs a
 * command named `$`. A transcript is fenced as `console`.
 */
export function strayPrompts(block: FencedBlock): number[] {
  if (block.language === "console") return [];
  return block.code.split("\n").flatMap((line, i) => (/^\$ /.test(line) ? [block.line + 1 + i] : []));
}
