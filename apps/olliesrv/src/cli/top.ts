import type { Agent, AgentState, OllieClient, SessionEntry, Watch } from "@ollie/client";
import { colourWanted, palette } from "./colour.js";
import { renderTable, summaryLine, type TopRow } from "./top-table.js";

/** The fewest milliseconds between two frames, however many agents change at once. */
const FRAME_MS = 100;

/** A row and what keeps it up to date. */
interface Watched {
  row: TopRow;
  agent: Agent;
  stop: AbortController;
}

/**
 * The sessions' agents and what they are doing. Each agent's state is watched (a blocked read open); when it
 * changes, that agent's activity, turns, outcome and usage are read again. The session list is followed too
 * (`session/idxwait`), for sessions made, ended or renamed since: nothing is read on a timer.
 */
export class Agents {
  /** By the agent's uname. */
  readonly watched = new Map<string, Watched>();
  constructor(
    private readonly client: OllieClient,
    private readonly changed: () => void,
  ) {}

  get rows(): TopRow[] {
    return [...this.watched.values()]
      .map((w) => w.row)
      .sort((a, b) => a.session.localeCompare(b.session) || a.agent.localeCompare(b.agent));
  }

  /**
   * Goes by the session list (`listed`, else read now): new agents are watched, those of ended sessions
   * dropped.
   */
  async discover(follow: boolean, listed?: SessionEntry[]): Promise<void> {
    const sessions = new Map((listed ?? (await this.client.sessions())).map((s) => [s.id, s.name]));
    for (const [uname, w] of this.watched)
      if (!sessions.has(w.row.session)) this.drop(uname);
      else w.row.name = sessions.get(w.row.session) ?? "";
    await Promise.all(
      [...sessions].map(async ([session, name]) => {
        if ([...this.watched.values()].some((w) => w.row.session === session)) return;
        const handle = this.client.session(session);
        const agents = await handle.agents().catch(() => []);
        await Promise.all(
          agents.map((agent) =>
            this.watch(
              { session, name, agent, activity: undefined, turns: 0, outcome: undefined, usage: undefined },
              handle.agent(agent),
              follow,
            ),
          ),
        );
      }),
    );
    this.changed();
  }

  /**
   * Discovers the sessions now and at each change of the list, until `signal` aborts. The list's wait is
   * opened before the first read, so a session made between the two is not missed.
   */
  async followSessions(signal: AbortSignal): Promise<void> {
    const lists = await this.client.watchSessions({ signal });
    try {
      await this.discover(true);
      for (;;) await this.discover(true, await lists.next());
    } catch (error) {
      if (!signal.aborted) throw error;
    } finally {
      await lists.close();
    }
  }

  stopAll(): void {
    for (const uname of [...this.watched.keys()]) this.drop(uname);
  }

  private async watch(row: TopRow, agent: Agent, follow: boolean): Promise<void> {
    if (this.watched.has(agent.uname)) return;
    const w: Watched = { row, agent, stop: new AbortController() };
    this.watched.set(agent.uname, w);
    let states: Watch<AgentState> | undefined;
    try {
      // Opened before the first read, so a change between the two is not missed.
      states = follow ? await agent.watchState({ signal: w.stop.signal }) : undefined;
      await this.refresh(w);
    } catch {
      // The agent is gone, or its files cannot be read: no row, and its wait is let go (the session is
      // tried again at the next discover, and would otherwise leave a fid open each time).
      this.drop(agent.uname);
      await states?.close();
      return;
    }
    if (states) void this.follow(w, states);
  }

  /** Reads the agent's files again each time its state changes, until it is dropped. */
  private async follow(w: Watched, states: Watch<AgentState>): Promise<void> {
    try {
      for (;;) {
        await states.next();
        await this.refresh(w);
        this.changed();
      }
    } catch {
      // Stopped, or the session was killed: its readers are answered with an error.
      this.drop(w.agent.uname);
      this.changed();
    } finally {
      await states.close();
    }
  }

  private async refresh(w: Watched): Promise<void> {
    const [activity, turns, outcome, usage, budget] = await Promise.all([
      w.agent.activity(),
      w.agent.turns(),
      w.agent.outcome(),
      w.agent.usage(),
      this.client.session(w.row.session).budget(),
    ]);
    Object.assign(w.row, { activity, turns, outcome, usage: usage.session, budget });
  }

  private drop(uname: string): void {
    this.watched.get(uname)?.stop.abort();
    this.watched.delete(uname);
  }
}

/**
 * `ollie top`: a live table of every session's agents — state (`failed` when the last turn failed), how long
 * in it, turns, tokens, cost, age, the running tool or hook (or why the last turn failed) — redrawn when one changes (and each second, for the times). `q` or Ctrl-C quits. When stdout
 * is not a terminal it prints the table once and exits, for scripts.
 */
export async function top(client: OllieClient): Promise<number> {
  const out = process.stdout;
  const p = palette(colourWanted(out));
  if (!out.isTTY) {
    const agents = new Agents(client, () => {});
    await agents.discover(false);
    const now = Date.now();
    out.write(
      `${[summaryLine(agents.rows, now, false), ...renderTable(agents.rows, p, now, Infinity)].join("\n")}\n`,
    );
    return 0;
  }
  let frame: NodeJS.Timeout | undefined;
  // Set as top quits: what is still under way then (a read the quitting aborts, a discover) draws nothing.
  let done = false;
  const agents = new Agents(client, () => {
    if (!done) frame ??= setTimeout(draw, FRAME_MS);
  });
  const draw = () => {
    frame = undefined;
    if (done) return;
    const now = Date.now();
    const height = Math.max(3, out.rows || 24);
    const width = Math.max(20, out.columns || 80);
    const rows = agents.rows;
    const lines = renderTable(rows, p, now, width);
    const shown = lines.slice(0, height - 2);
    if (shown.length < lines.length)
      shown[shown.length - 1] = `… and ${lines.length - shown.length + 1} more`;
    const head = p.dim(summaryLine(rows, now, true).slice(0, width));
    // Home, each line then erase to its end, then erase what is below: no flicker of a full clear.
    out.write(`\u001b[H${[head, ...shown].map((l) => `${l}\u001b[K`).join("\n")}\u001b[J`);
  };
  // The alternate screen keeps the shell's scrollback as it was; the cursor is hidden while the table runs.
  out.write("\u001b[?1049h\u001b[?25l");
  let restored = false;
  /** The shell's screen and cursor back, once: as top quits, or as it crashes (before the error is shown). */
  const restore = () => {
    if (restored) return;
    restored = true;
    done = true;
    out.write("\u001b[?25h\u001b[?1049l");
  };
  process.once("uncaughtExceptionMonitor", restore);
  process.once("exit", restore);
  const input = process.stdin;
  let quit!: () => void;
  const quitting = new Promise<void>((resolve) => {
    quit = resolve;
  });
  const onKey = (key: Buffer) => {
    if (key.includes(0x71) || key.includes(0x03)) quit();
  };
  if (input.isTTY) input.setRawMode(true);
  input.on("data", onKey);
  process.on("SIGINT", quit);
  process.on("SIGTERM", quit);
  const clock = setInterval(draw, 1000);
  const following = new AbortController();
  try {
    // Ends with an error only when the connection does (olliesrv stopped): top then quits saying so.
    await Promise.race([agents.followSessions(following.signal), quitting]);
  } finally {
    done = true;
    following.abort();
    clearInterval(clock);
    clearTimeout(frame);
    agents.stopAll();
    input.off("data", onKey);
    if (input.isTTY) input.setRawMode(false);
    input.destroy();
    process.off("SIGINT", quit);
    process.off("SIGTERM", quit);
    restore();
    process.off("uncaughtExceptionMonitor", restore);
    process.off("exit", restore);
  }
  return 0;
}
