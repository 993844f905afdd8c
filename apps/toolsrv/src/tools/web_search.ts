// ollie:tool web_search
// ollie:description Search the web through the search command the user configured ($OLLIE_WEB_SEARCH): it
// ollie:description is given the query and prints the results (titles, URLs, snippets). Read a result's page
// ollie:description with web_fetch. Without a configured command it says so, and searches nothing.
// ollie:param query string required  What to search for
// ollie:parallel read
// ollie:tier cold
// ollie:timeout 60
import { execa } from "execa";
import { stringArg, ToolError, tool } from "./lib/tool-io.js";

/** Leaves the tool's own timeout room to report a command that hangs. */
const TIME_LIMIT_MS = 50_000;
const MAX_CHARS = 50_000;
const STDERR_TAIL = 2000;

await tool(async (args) => {
  const query = stringArg(args, "query", true).trim();
  if (query === "") throw new ToolError("argument 'query' is empty: say what to search for");
  // Only the user's own command: Ollie has no search service of its own and sends queries nowhere else.
  const command = process.env.OLLIE_WEB_SEARCH?.trim();
  if (!command)
    throw new ToolError(
      "no web search is configured: set OLLIE_WEB_SEARCH in the session's environment to a command that takes " +
        "the query as its one argument and prints the results. web_fetch can still read a page whose URL you know.",
    );
  // The query is one argument, never shell text; the command runs in this tool's sandbox.
  const r = await execa(command, [query], {
    reject: false,
    stdin: "ignore",
    timeout: TIME_LIMIT_MS,
    maxBuffer: 4 * MAX_CHARS,
    stripFinalNewline: false,
  });
  const named = `OLLIE_WEB_SEARCH '${command}'`;
  const code = (r.cause as NodeJS.ErrnoException | undefined)?.code;
  if (code === "ENOENT") throw new ToolError(`${named} is not found (give its full path, or put it on PATH)`);
  if (code === "EACCES")
    throw new ToolError(
      `${named} cannot be run here: it is not executable, or the sandbox does not grant its directory (rox)`,
    );
  if (r.timedOut) throw new ToolError(`${named} gave no result within ${TIME_LIMIT_MS / 1000} s`);
  const stdout = String(r.stdout);
  if (r.failed && !r.isMaxBuffer) {
    const how = r.exitCode !== undefined ? `exit status ${r.exitCode}` : (r.signal ?? r.shortMessage);
    const stderr = String(r.stderr).trim().slice(-STDERR_TAIL);
    throw new ToolError(`${named} failed (${how})${stderr ? `:\n${stderr}` : ""}`);
  }
  if (stdout.trim() === "") return `(no results for "${query}")`;
  if (stdout.length <= MAX_CHARS && !r.isMaxBuffer) return stdout;
  return `${stdout.slice(0, MAX_CHARS)}\n[cut: the first ${MAX_CHARS.toLocaleString("en-US")} characters of the results]`;
});
