import { clearLine, createInterface, cursorTo } from "node:readline";
import { type OllieClient, RefusedError } from "@ollie/client";
import { askTurn } from "../frontend/ask-turn.js";
import { followActivity } from "../frontend/follow-activity.js";
import { colourWanted, palette } from "./colour.js";
import { directorySession } from "./directory-session.js";
import { InlineApprovals } from "./inline-approvals.js";
import { LastResult } from "./last-result.js";
import { shellCommand } from "./shell-commands.js";
import { turnSummary } from "./turn-summary.js";
import { TurnView } from "./turn-view.js";

/** The turn sh is showing now. */
interface RunningTurn {
  view: TurnView;
  /** Aborted to stop following the turn (it goes on at the daemon). */
  following: AbortController;
  /** The agent has taken the prompt: there is a turn to stop. */
  submitted: boolean;
  stopping: boolean;
  left: boolean;
}

/**
 * `ollie sh`: a conversation at the terminal. A line is a prompt, its turn streamed back with a status line
 * under it while it runs and a summary line at its end; `/help` lists the commands, and a `/word` that is
 * not sh's own is written to the agent's ctl. `/last` and Ctrl-O show the last tool result whole; a bypass
 * request of the session's agents is asked inline (see InlineApprovals). Ctrl-C stops a running turn (a
 * second one leaves it running) and, at the prompt, clears the line; Ctrl-D ends. Without `given`, a session is made in this directory
 * (profile `agent`, else DIRECTORY_PROFILE) and kept when sh ends, unless nothing was said in it. Commands
 * typed while a turn runs run at once; prompts wait for the turn.
 */
export async function shell(client: OllieClient, given?: string, profile?: string): Promise<number> {
  const made = given ? undefined : await directorySession(client, profile, "ollie sh");
  const session = given ?? made!.id;
  const agent = client.session(session).agent();
  const out = process.stdout;
  const colour = colourWanted(out);
  const p = palette(colour);
  // Markdown is rendered where colour is wanted (a terminal, no NO_COLOR): elsewhere the text is as written.
  const markdown = colour
    ? (await import("./terminal-markdown.js")).terminalMarkdown(out.columns || 80)
    : undefined;
  const first = made ? made.said : `session ${session}, profile ${(await agent.cfg()).profile}`;
  out.write(`${p.dim(`${first}\n/help lists the commands; Ctrl-C stops a turn, Ctrl-D leaves`)}\n`);
  let killed = false;
  // Both are followed before the terminal is read: piped lines would be read, and lost, while they open.
  const last = await LastResult.follow(agent);
  const approvals = await InlineApprovals.open(
    client,
    session,
    {
      ask: (question, asking) => {
        turn?.view.hold(() => rl.prompt(true));
        interject(question);
        rl.setPrompt(asking);
        prompt();
      },
      done: () => {
        rl.setPrompt("» ");
        turn?.view.release();
      },
      say: (text) => interject(text),
    },
    p,
  );
  const rl = createInterface({ input: process.stdin, output: out, prompt: "» ", historySize: 1000 });
  let turn: RunningTurn | undefined;
  let closed = false;
  const say = (text: string) => {
    if (text === "") return;
    if (turn) turn.view.notice(text);
    else out.write(text.endsWith("\n") ? text : `${text}\n`);
  };
  const prompt = () => {
    if (!closed) rl.prompt();
  };
  /** Shows `text` at the prompt (redrawn under it, what was typed kept) or in the running turn. */
  const interject = (text: string) => {
    if (turn) return say(text);
    clearLine(out, 0);
    cursorTo(out, 0);
    out.write(text.endsWith("\n") ? text : `${text}\n`);
    if (!closed) rl.prompt(true);
  };
  // Ctrl-O shows the last tool result whole, as /last does, at the prompt or while a turn runs.
  process.stdin.on("keypress", (_text: string, key: { ctrl?: boolean; name?: string } | undefined) => {
    if (key?.ctrl && key.name === "o") interject(last.text(p));
  });

  rl.on("SIGINT", () => {
    if (!turn) {
      rl.write(null, { ctrl: true, name: "u" });
      out.write("\n");
      prompt();
    } else if (!turn.stopping) {
      turn.stopping = true;
      say(p.yellow("[stopping]"));
      // Before the prompt is taken there is no turn to stop yet: it is stopped as soon as it is.
      if (turn.submitted) stop();
    } else {
      turn.left = true;
      turn.following.abort();
    }
  });

  // For a Ctrl-C, as ask does: a turn that ended meanwhile is not an error (its summary says how it ended).
  const stop = () => agent.stop().catch((e: unknown) => say(p.red(`error: ${reason(e)}`)));

  const command = async (line: string) => {
    if (/^\/last\s*$/.test(line)) return say(last.text(p));
    try {
      const result = await shellCommand(agent, line);
      say(result.text);
      if (result.leave) {
        killed = true;
        rl.close();
      }
    } catch (error) {
      say(p.red(`error: ${reason(error)}`));
    }
  };

  const ask = async (text: string) => {
    const following = new AbortController();
    const view = new TurnView({
      screen: out,
      palette: p,
      statusLine: out.isTTY === true,
      ...(markdown && { markdown }),
      resultHint: out.isTTY ? "/last or Ctrl-O shows it all" : "/last shows it all",
      // A terminal echoed the line as it was typed; piped input was not shown.
      ...(process.stdin.isTTY && { echoed: text }),
    });
    const current: RunningTurn = { view, following, submitted: false, stopping: false, left: false };
    turn = current;
    let activity: { stop(): Promise<void> } | undefined;
    try {
      // Followed before the prompt is written, so the turn's first state is not missed.
      activity = await followActivity(agent, (a) => view.update(a));
      const { outcome } = await askTurn(agent, text, (chunk, kind) => view.chunk(chunk, kind), {
        signal: following.signal,
        submitted: () => {
          current.submitted = true;
          if (current.stopping) void stop();
        },
      });
      view.end();
      // The chat's `!` line said why the turn failed: the summary does not say it again.
      const ended = outcome.status === "error" && view.failureShown ? "error" : outcome.text;
      view.finish(await turnSummary(p, agent, ended, view.elapsedMs, () => client.session(session).budget()));
    } catch (error) {
      view.finish(
        current.left
          ? p.yellow(`[left running] /stop or \`ollie stop ${session}\` stops it`)
          : p.red(`error: ${reason(error)}`),
      );
    } finally {
      await activity?.stop();
      turn = undefined;
    }
  };

  // Lines are taken in order; a command typed while a turn runs does not wait for it (/stop, /status).
  let queue = Promise.resolve();
  rl.on("line", (raw) => {
    // A question asked inline takes the next line as its answer, whatever runs.
    if (approvals?.waiting) {
      void approvals.answer(raw).then(() => {
        if (!turn && !approvals.waiting) prompt();
      });
      return;
    }
    const line = raw.trim();
    if (line.startsWith("/") && turn) {
      void command(line);
      return;
    }
    queue = queue.then(async () => {
      if (line.startsWith("/")) await command(line);
      else if (line !== "") await ask(line);
      prompt();
    });
  });
  prompt();
  approvals?.begin();
  await new Promise<void>((resolve) =>
    rl.once("close", () => {
      closed = true;
      resolve();
    }),
  );
  await queue;
  await approvals?.stop();
  await last.stop();
  // The terminal is done with: let go of it, so nothing keeps the process alive.
  process.stdin.destroy();
  if (made && !killed) await leaving(client, session);
  return 0;
}

/** sh made `session` and ends: one in which nothing was said goes; any other is kept, and said so. */
async function leaving(client: OllieClient, session: string): Promise<void> {
  const said = await client
    .session(session)
    .agent()
    .chatText()
    .then(
      (chat) => chat !== "",
      () => true,
    );
  if (said) {
    process.stdout.write(
      `session ${session} is kept: 'ollie sh ${session}' goes on with it, 'ollie rm ${session}' removes it\n`,
    );
    return;
  }
  await client
    .session(session)
    .kill()
    .catch((error: unknown) =>
      process.stderr.write(`ollie: could not remove session ${session}: ${reason(error)}\n`),
    );
}

/** What went wrong: olliesrv's words for a refusal (sh's files are always the same), else the message. */
function reason(error: unknown): string {
  return error instanceof RefusedError ? error.reason : (error as Error).message;
}
