import type { Message, Tool, ToolResultMessage } from "../../types.js";

/** The prefix of the messages an agent loop adds on its own (agent-core's nudges): not a person's prompt. */
const LOOP_PREFIX = "[ollie] ";

/** How a person is told where to go from the demo. */
export const REAL_BACKEND_ADVICE =
  "For a real model, configure another backend: `ollie init anthropic` (with $ANTHROPIC_API_KEY set) or `ollie init` for the list, or a profile of another type in backends.conf.";

/** What the demo says and does for one request: text, then at most one tool call. */
export interface DemoStep {
  text: string;
  call?: { name: string; arguments: Record<string, unknown> };
}

/**
 * The demo's reply to a conversation. A turn's first request — the person's prompt, no tool result after it —
 * is answered with one real call of a tool it was offered: `file_read` of a file the prompt names, else
 * `file_glob` of the working directory, else `shell` running `ls -A`. The request after the call's result
 * is answered with what the result holds. Without any of those tools (or a compaction request, which offers
 * none) the reply is text about the conversation. Every reply says it is the offline demo.
 */
export function demoStep(messages: readonly Message[], tools: readonly Tool[]): DemoStep {
  const at = promptIndex(messages);
  const prompt = at < 0 ? "" : messages[at]!.content;
  const results = messages.slice(at + 1).filter((m): m is ToolResultMessage => m.role === "tool");
  if (results.length > 0) {
    return {
      text: `${results.map(describeResult).join("\n")}\n\nThat was a real tool call, run by Ollie's tools in the sandbox. I am Ollie's offline demo backend, a script rather than a model: I looked at your prompt only for a file name. ${REAL_BACKEND_ADVICE}`,
    };
  }
  const offered = new Set(tools.map((t) => t.name));
  const file = fileNamed(prompt);
  const intro = "This is Ollie's offline demo backend: no model and no network, but real tools.";
  if (file !== undefined && offered.has("file_read"))
    return {
      text: `${intro} I will read ${file} with file_read.`,
      call: { name: "file_read", arguments: { path: file, limit: 40 } },
    };
  if (offered.has("file_glob"))
    return {
      text: `${intro} I will list the files here with file_glob.`,
      call: { name: "file_glob", arguments: { pattern: "*" } },
    };
  if (offered.has("shell"))
    return {
      text: `${intro} I will list this directory with the shell.`,
      call: { name: "shell", arguments: { command: "ls -A" } },
    };
  const turns = messages.filter((m) => m.role === "user").length;
  const quoted = prompt === "" ? "nothing yet" : `"${clip(prompt.trim(), 120)}"`;
  return {
    text: `${intro} This agent has none of the tools I know how to show (file_read, file_glob, shell), so there is nothing to run: the conversation holds ${turns} prompt(s), the last of them ${quoted}. ${REAL_BACKEND_ADVICE}`,
  };
}

/** Where the person's last prompt is: the last user message that the loop did not add itself. */
function promptIndex(messages: readonly Message[]): number {
  for (let i = messages.length - 1; i >= 0; i--) {
    const m = messages[i]!;
    if (m.role === "user" && !m.content.startsWith(LOOP_PREFIX)) return i;
  }
  return -1;
}

/** A word of the prompt that looks like a file: a name with an extension, or a path with a slash. */
export function fileNamed(prompt: string): string | undefined {
  for (const raw of prompt.split(/\s+/)) {
    const word = raw.replace(/^[`'"(<[]+|[`'")>\],;:!?]+$/g, "").replace(/\.$/, "");
    if (/^https?:/.test(word) || word.length > 200) continue;
    if (/^[\w.~/-]*\w\.[A-Za-z][A-Za-z0-9]{0,7}$/.test(word) || /^[\w.~-]*\/[\w./-]+$/.test(word))
      return word;
  }
  return undefined;
}

/** One tool result in words: what it found, from the real text it returned. */
function describeResult(result: ToolResultMessage): string {
  const lines = result.content.split("\n").filter((l) => l.trim() !== "");
  const first = lines[0] === undefined ? "" : clip(lines[0].trim(), 200);
  if (result.isError) {
    // Its own words before the runner's notes (`[file_read exited with status 1]`), which say less.
    const said = lines.find((l) => !/^\[.*\]$/.test(l.trim())) ?? lines[0];
    return `${result.name} failed: ${said === undefined ? "it said nothing" : clip(said.trim(), 200)}.`;
  }
  if (lines.length === 0) return `${result.name} returned nothing.`;
  switch (result.name) {
    case "file_glob": {
      if (/^no files under /.test(first)) return `file_glob found no files here (${first}).`;
      const files = lines.filter((l) => !l.startsWith("["));
      return `file_glob found ${count(files.length, "file")} here: ${list(files)}.`;
    }
    case "file_read": {
      // Its lines are numbered (`  12\ttext`); the notes it adds (`[… more lines]`) are not.
      const text = lines.filter((l) => /^\s*\d+\t/.test(l)).map((l) => l.replace(/^\s*\d+\t/, ""));
      const body = text.find((l) => l.trim() !== "") ?? first;
      const more = lines.find((l) => /^\[\d+ more lines/.test(l));
      return `file_read gave ${count(text.length, "line")}${more ? ` (and ${more.slice(1).split(":")[0]})` : ""}; the first says: "${clip(body.trim(), 160)}".`;
    }
    case "shell":
      return `The shell printed ${count(lines.length, "line")}: ${list(lines)}.`;
    default:
      return `${result.name} returned ${count(lines.length, "line")}, the first: "${first}".`;
  }
}

function count(n: number, noun: string): string {
  return `${n} ${noun}${n === 1 ? "" : "s"}`;
}

/** The first few items, and how many more. */
function list(items: readonly string[], shown = 8): string {
  const head = items.slice(0, shown).map((i) => clip(i.trim(), 80));
  return items.length > shown ? `${head.join(", ")} and ${items.length - shown} more` : head.join(", ");
}

function clip(text: string, max: number): string {
  return text.length > max ? `${text.slice(0, max - 1)}…` : text;
}
