import { parseArgs } from "node:util";
import { connect, defaultAddress, type OllieClient } from "@ollie/client";
import { sessionTable } from "../frontend/session-lines.js";
import { askCommand } from "./ask-command.js";
import { decideCommand, pendingCommand } from "./bypass-commands.js";
import { chatCommand } from "./chat-command.js";
import { feedCommand } from "./feed-command.js";
import { type Invocation, type LocalInvocation, parseInvocation } from "./invocation.js";
import { observeCommand } from "./observe-command.js";
import { reachDaemon } from "./reach-daemon.js";
import { pruneCommand, rmCommand } from "./remove-commands.js";
import { runCommand } from "./run-command.js";
import { shell } from "./shell.js";
import { statusCommand } from "./status-command.js";
import { top } from "./top.js";
import { undoCommand } from "./undo-command.js";

export const USAGE = `usage: ollie [-a ADDR] [-u UNAME] [-k KEYFILE] [--keep-daemon] COMMAND ...
       ollie --help | --version
  new [--agent P] [--cwd D] [--remote [USER@]HOST[:DIR]] [--backend B] [--model M] [--name N]
                            create a session (its tools on HOST over ssh with --remote); prints its id
  ask [--agent P] [--keep] [SESSION] TEXT...
                            prompt SESSION and stream the turn; Ctrl-C stops the turn, a second Ctrl-C
                            leaves it running. Without SESSION, a new session in this directory, profile
                            coding unless --agent (said on stderr), removed after a turn that ended well
                            unless --keep (a session kept is said, with its id)
  run [--json] [--agent P | --session S] [--backend B] [--model M] [--max-turns N] [--max-cost USD]
      [--approve deny|fail] [--keep] PROMPT... | -
                            one turn with nobody to ask, for scripts and CI: in a new session in this
                            directory (profile coding unless --agent), removed at its end unless --keep, or
                            in session S (kept); - reads the prompt from standard input. The chat on stdout,
                            or with --json one JSON object a line (a versioned schema: see the README). An
                            approval is denied at once (--approve fail: and the run ends); --max-turns limits
                            the rounds of tool calls, --max-cost is the run's budget in US dollars
  sh [--agent P] [SESSION]  talk interactively; /help lists the commands; Ctrl-C stops a turn; /last or
                            Ctrl-O shows the last tool result whole; a bypass request is asked inline
                            (y/n/a). Without SESSION, a new session in this directory (profile coding
                            unless --agent), kept when sh ends unless nothing was said in it
  ls                        the sessions, under a header: id, name, state, directory (nothing when none)
  rm [-f] SESSION...        end sessions and remove what they saved (and the sessions they spawned); one in
                            which something runs is refused unless -f
  prune [--older DURATION]  remove every session in which nothing runs (with --older, nor ran for DURATION:
                            30m, 12h, 7d); never one that runs
  top                       a live table of the agents: state, tool, turns, tokens, cost, budget, age; q quits
                            (printed once when standard output is not a terminal)
  undo [--chat | --both] SESSION
                            take back the last turn of SESSION's agent that wrote files: its directory as
                            it was before (the checkpoint made then; again, the turn before); --chat cuts
                            the conversation back to before that turn instead, --both does both
  web [--listen [HOST:]PORT] every session and agent in a browser: live chat, prompts, approvals, budgets,
                            checkpoints. Prints the address to open, with its access token; on a loopback
                            address of its own unless HOST says otherwise (then anyone with the token acts
                            as you)
  chat [-f] SESSION         the conversation; -f follows it
  status [SESSION]          state, profile, model, tokens, cost and budget
  stop SESSION              stop the running turn
  kill SESSION              end the session
  feed SESSION [--window S] [--max-lines N] [--max-bytes B] [--file PATH | -- CMD [ARGS...]]
                            prompt the session's main agent with the lines CMD prints (stdout and stderr;
                            CMD runs as you, not sandboxed), or that PATH gains (followed as tail -F does),
                            or of standard input: those of S seconds (default 2) from the first, at most N
                            lines (200) and B bytes (16384) a prompt, the first and last kept and those
                            between counted. One prompt at a time: until the agent's turn on it ends, what
                            comes joins the next. A line per prompt on stderr. Exit: CMD's status once it
                            ends (after a last prompt); 128+N on signal N (130 Ctrl-C), CMD's process group
                            stopped; 1 if the session ends
  observe SESSION [PROFILE] [--window S] [--keep] [--topics PATTERNS]
                            start an observer session (profile observer unless PROFILE) in SESSION's
                            directory, print its id, and prompt it with SESSION's events as short lines
                            (prompts, tool results, turn ends, errors; --topics: an events filter), S seconds'
                            worth (default 5) at a time; it writes what it finds to SESSION's agent. Until
                            SESSION ends (exit 0), Ctrl-C (130) or the observer ends (1); then the observer
                            session is killed (--keep keeps it)
  init [PROVIDER] [--url U] [--model M] [--key-env V | --key-cmd C | --no-key] [--force] [--no-check]
                            write backends.conf for PROVIDER (none: list them), have olliesrv use it (no
                            restart) and check the backend answers; an existing file is kept unless --force
  backends                  the backend profiles, the default (*) and whether each answers: olliesrv's own
                            view when it runs, else the file it will read (init and backends need no olliesrv)
  login copilot [--github-url URL] [--import]
                            sign in to GitHub Copilot with a code you enter on GitHub (--github-url: GitHub
                            Enterprise), or --import the token of a Copilot editor plugin
  login kiro [--start-url URL] [--region R] [--oidc-url URL]
                            sign in to Kiro (Amazon Q Developer): an AWS Builder ID, or IAM Identity Center
                            (--start-url, --region). A login needs no olliesrv; it keeps the token in
                            $XDG_DATA_HOME/ollie/credentials.json, and Ctrl-C cancels it (exit 130)
  bypass                    the requests of agents to run something outside the sandbox that wait for you:
                            number, agent, operation, command, reason
  approve ID                let bypass request ID run (outside the sandbox, as you)
  deny ID [REASON]          refuse it, telling the agent why
  mcp                       serve Ollie's sessions as an MCP server on standard input and output (for Claude
                            Code, Cursor…)
  acp [--agent P]           be an Agent Client Protocol agent on standard input and output, for editors
                            (Zed, JetBrains, Neovim, Emacs): each editor session an Ollie session in its
                            directory (profile coding unless --agent); logs on stderr
The address defaults to $NAMESPACE/ollie. When nothing answers there, a command that needs olliesrv (all
but init, backends and login) starts it in the background, logging to $XDG_STATE_HOME/ollie/olliesrv.log,
and goes on once it serves; it stops after $OLLIE_IDLE_EXIT (default 15m) with no client connected and no
agent running, or never with --keep-daemon (or OLLIE_IDLE_EXIT=0). None is started at an -a address
elsewhere, inside an agent's tool, or with OLLIE_AUTOSTART=0.
You attach as yourself, proven with the owner key olliesrv made ($XDG_DATA_HOME/ollie/keys/owner.key; -k
names another, e.g. a copy for a TCP listener); inside an agent's tool, as that agent ($OLLIE_UNAME, proven
with $OLLIE_KEY).
Exit status: 0 done, 1 failed, 2 a usage mistake; ask says how the turn ended: 0 done (or handled by a
hook), 1 error, 3 maxsteps, 4 blocked by a hook, 5 budget (the session's budget refused a request), 130
interrupted (or left running by a second Ctrl-C); run too, and 5 when it cost more than --max-cost, 6 when
an agent asked for an approval with --approve fail.
sh and top colour their output on a terminal, unless NO_COLOR is set (not empty) or TERM is dumb.
`;

/** The `ollie` command. Returns the exit status: 0 success, 1 a failure, 2 a usage mistake (and ask's and run's, in USAGE). */
export async function main(argv: string[]): Promise<number> {
  let parsed: ReturnType<typeof parseGlobals>;
  try {
    parsed = parseGlobals(argv);
  } catch (error) {
    return usage((error as Error).message);
  }
  const { values, rest } = parsed;
  if (values.help) {
    process.stdout.write(USAGE);
    return 0;
  }
  if (values.version) {
    process.stdout.write(`${__PACKAGE_VERSION__}\n`);
    return 0;
  }
  const [command, ...args] = rest;
  // `ollie` alone: what it can do is what was asked.
  if (command === undefined) {
    process.stderr.write(`ollie: no command given\n${USAGE}`);
    return 2;
  }
  let invocation: Invocation;
  try {
    invocation = parseInvocation(command, args);
  } catch (error) {
    return usage((error as Error).message, command);
  }
  // The address is ollie's own default, not $OLLIE_ADDRESS: inside an agent's tool, -a says where else to go.
  const reach = () => connect({ address: values.a ?? defaultAddress(), uname: values.u, keyFile: values.k });
  // What needs olliesrv starts it when none answers (see reachDaemon); init and backends only ask it.
  const reachOrStart = () =>
    reachDaemon({
      address: values.a,
      uname: values.u,
      keyFile: values.k,
      keepDaemon: values["keep-daemon"] ?? false,
      env: process.env,
    });
  if (invocation.command === "web") return await runLocal(invocation, reachOrStart, reach);
  if (invocation.command === "mcp" || invocation.command === "acp")
    return await runLocal(invocation, reachOrStart);
  if (invocation.command === "init" || invocation.command === "backends" || invocation.command === "login")
    return await runLocal(invocation, reach);
  let client: OllieClient;
  try {
    client = await reachOrStart();
  } catch (error) {
    process.stderr.write(`ollie: ${(error as Error).message}\n`);
    return 1;
  }
  try {
    return await run(client, invocation);
  } catch (error) {
    process.stderr.write(`ollie: ${(error as Error).message}\n`);
    return 1;
  } finally {
    client.close();
  }
}

/**
 * init, backends, login, mcp, acp and web: they work without olliesrv; all but login `reach` it when it
 * runs (mcp, acp and web starting it if need be; web dials again with `reachAgain` whenever it goes).
 */
async function runLocal(
  invocation: LocalInvocation,
  reach: () => Promise<OllieClient>,
  reachAgain: () => Promise<OllieClient> = reach,
): Promise<number> {
  try {
    // Loaded only for these: they need the providers or the MCP SDK, which the other commands do without.
    if (invocation.command === "init")
      return await (await import("./init.js")).initCommand(invocation, reach);
    if (invocation.command === "login")
      return await (await import("./login-command.js")).loginCommand(invocation);
    if (invocation.command === "mcp") return await (await import("../mcp/mcp-command.js")).mcpCommand(reach);
    if (invocation.command === "acp")
      return await (await import("../acp/acp-command.js")).acpCommand(invocation, reach);
    if (invocation.command === "web")
      return await (await import("./web-command.js")).webCommand(invocation, reach, reachAgain);
    return await (await import("./backends-command.js")).backendsCommand(reach);
  } catch (error) {
    process.stderr.write(`ollie: ${(error as Error).message}\n`);
    return 1;
  }
}

async function run(client: OllieClient, invocation: Exclude<Invocation, LocalInvocation>): Promise<number> {
  switch (invocation.command) {
    case "new":
      process.stdout.write(`${(await client.newSession(invocation.spec)).id}\n`);
      return 0;
    case "ask":
      return await askCommand(client, invocation);
    case "run":
      return await runCommand(client, invocation);
    case "sh":
      return await shell(client, invocation.session, invocation.agent);
    case "ls":
      process.stdout.write(sessionTable(await client.sessions()));
      return 0;
    case "rm":
      return await rmCommand(client, invocation);
    case "prune":
      return await pruneCommand(client, invocation);
    case "undo":
      return await undoCommand(client, invocation);
    case "top":
      return await top(client);
    case "chat":
      return await chatCommand(client, invocation.session, invocation.follow);
    case "status":
      return await statusCommand(client, invocation.session);
    case "stop":
      await client.session(invocation.session).agent().ctl("stop");
      return 0;
    case "kill":
      await client.session(invocation.session).kill();
      return 0;
    case "feed":
      return await feedCommand(client, invocation);
    case "observe":
      return await observeCommand(client, invocation);
    case "bypass":
      return await pendingCommand(client);
    case "approve":
    case "deny":
      return await decideCommand(client, invocation);
  }
}

const GLOBAL_OPTIONS = {
  a: { type: "string" },
  u: { type: "string" },
  k: { type: "string" },
  "keep-daemon": { type: "boolean" },
  help: { type: "boolean", short: "h" },
  version: { type: "boolean" },
} as const;

/** The options before the command word are ollie's own; from the command word on, the command's. */
function parseGlobals(argv: string[]) {
  const { tokens } = parseArgs({ args: argv, options: GLOBAL_OPTIONS, strict: false, tokens: true });
  const first = tokens.find((t) => t.kind !== "option");
  const end = first?.index ?? argv.length;
  const { values } = parseArgs({ args: argv.slice(0, end), options: GLOBAL_OPTIONS });
  return { values, rest: argv.slice(first?.kind === "option-terminator" ? end + 1 : end) };
}

/** Commands with a usage of their own, which `ollie COMMAND --help` prints. */
const OWN_HELP = new Set(["init", "login"]);

/**
 * A usage mistake: what it is, and where the usage is, in two lines. The whole usage would bury the one line
 * that says what was wrong.
 */
function usage(problem: string, command?: string): number {
  const help = command !== undefined && OWN_HELP.has(command) ? `ollie ${command} --help` : "ollie --help";
  process.stderr.write(`ollie: ${problem}\ntry '${help}' for the usage\n`);
  return 2;
}
