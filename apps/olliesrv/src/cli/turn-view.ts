import type { AgentActivity, ChatKind } from "@ollie/client";
import { doingText, duration } from "../frontend/agent-text.js";
import { echoFilter } from "../frontend/echo-filter.js";
import { type BlockRenderer, MarkdownStream } from "../frontend/markdown-stream.js";
import { shorten } from "../one-line.js";
import { chatPainter, type Palette } from "./colour.js";

/** Where a turn is shown: a terminal (`columns` set) or any other stream. */
export interface Screen {
  write(text: string): unknown;
  columns?: number;
}

export interface TurnViewOptions {
  screen: Screen;
  palette: Palette;
  /** Draw the status line: only on a terminal, where `\r` goes back over it. */
  statusLine: boolean;
  /** The prompt as the terminal showed it when it was typed: the chat's `» prompt` block is dropped. */
  echoed?: string;
  /** Renders the model's text, a block at a time (Markdown at a colour terminal); none: shown as it is. */
  markdown?: BlockRenderer;
  /** Said after a result line that stands for more lines (`(12 lines)`): how to see them all. */
  resultHint?: string;
  now?: () => number;
}

/**
 * One turn of `ollie sh` on the screen: the chat as it streams (less the prompt the terminal echoed), the
 * model's text rendered a block at a time when a renderer is given, under it a status line — the state, the
 * running tool and its first argument, the time the turn has taken — while the turn runs, and a summary line
 * at its end. The status line is the last line, drawn only at the start of an empty line: it is cleared when
 * text streams and drawn again once the text has ended its line. It is cleared with spaces and a carriage
 * return, so it needs no escape sequences and works on any terminal.
 *
 * A failure is said once: a retry is shown on the status line while it waits (at a terminal), or else its
 * reason only when it differs from the last retry's; `failureShown` tells the summary whether the chat has
 * said why the turn failed already.
 */
export class TurnView {
  private readonly paint: (chunk: string) => string;
  private readonly dropEcho: (chunk: string) => string;
  private readonly markdown: MarkdownStream | undefined;
  private readonly started: number;
  private readonly now: () => number;
  private readonly ticker: NodeJS.Timeout | undefined;
  private activity: AgentActivity | undefined;
  /** The chat left its line open: the status line waits for its end. */
  private lineOpen = false;
  /** The width of the status line on the screen now (0: none drawn). */
  private drawn = 0;
  private ended = false;
  /** The agent has been seen at work: idle now means the turn is over, not that it waits to begin. */
  private begun = false;
  /** The retry being waited for, on the status line until the chat goes on. */
  private retrying: string | undefined;
  /** The reason the last retry line gave (left out of the next one that gives the same). */
  private retryReason: string | undefined;
  /** A `~` line as far as it has come: it is shown once whole. */
  private aside = "";
  /** A `!` line was shown: the chat has said why the turn failed. */
  failureShown = false;
  /**
   * sh asks a question on the last line: no status line is drawn, and chat that comes meanwhile is written
   * above the question's prompt, which this redraws.
   */
  private held: (() => void) | undefined;

  constructor(private readonly options: TurnViewOptions) {
    this.now = options.now ?? Date.now;
    this.started = this.now();
    this.paint = chatPainter(options.palette);
    this.dropEcho = options.echoed === undefined ? (chunk) => chunk : echoFilter(options.echoed);
    this.markdown = options.markdown && new MarkdownStream(options.markdown);
    if (options.statusLine) {
      // The elapsed time moves on; nothing is read to redraw it.
      this.ticker = setInterval(() => this.redraw(), 1000);
      this.ticker.unref();
      this.redraw();
    }
  }

  /** A piece of the chat as it streams: part of one line, and the kind of line it is. */
  chunk(text: string, kind: ChatKind = "text"): void {
    const shown = this.dropEcho(text);
    if (shown === "" || this.ended) return;
    if (kind === "text" && this.markdown) {
      this.write(this.markdown.push(shown), false);
      return;
    }
    this.flushMarkdown();
    // Retries and results are held to their line's end: each is shown whole, or on the status line.
    if (kind === "retry" || kind === "result") {
      this.aside += shown;
      if (!shown.endsWith("\n")) return;
      const line = this.aside.slice(0, -1);
      this.aside = "";
      if (kind === "retry") this.retried(line);
      else this.returned(line);
      return;
    }
    this.retrying = undefined;
    if (kind === "error") this.failureShown = true;
    this.write(shown, true);
  }

  /** What the agent does now (after its state changed). */
  update(activity: AgentActivity): void {
    this.activity = activity;
    if (activity.state !== "idle") this.begun = true;
    this.redraw();
  }

  /** A line of sh's own (`[stopping]`, a command's answer) in the middle of the turn. */
  notice(text: string): void {
    this.clear();
    if (this.lineOpen) this.options.screen.write("\n");
    this.lineOpen = false;
    this.options.screen.write(text.endsWith("\n") ? text : `${text}\n`);
    this.redraw();
  }

  /**
   * Leaves the last line to a question sh asks, whose prompt `redrawPrompt` shows again under what the chat
   * writes meanwhile; `release()` takes the line back.
   */
  hold(redrawPrompt: () => void): void {
    this.clear();
    this.held = redrawPrompt;
  }

  release(): void {
    this.held = undefined;
    this.redraw();
  }

  /** The turn is over: the status line goes for good, and `summary` is the last line. */
  finish(summary: string): void {
    this.end();
    this.notice(summary);
  }

  /** Stops drawing (the turn ended, or sh stopped following it); what the text held back is shown. */
  end(): void {
    if (!this.ended) this.flushMarkdown();
    this.ended = true;
    if (this.ticker) clearInterval(this.ticker);
    this.clear();
  }

  /** How long the turn has taken so far, as sh counts it (from the prompt). */
  get elapsedMs(): number {
    return this.now() - this.started;
  }

  /** Writes chat text: `painted` by its lines' marks (rendered text comes coloured already). */
  private write(text: string, painted: boolean): void {
    if (text === "") return;
    this.clear();
    // Over the question's prompt (carriage return, erase the line), which comes back under the text.
    if (this.held) this.options.screen.write("\r\u001b[K");
    this.options.screen.write(painted ? this.paint(text) : text);
    this.lineOpen = !text.endsWith("\n");
    if (this.held && this.lineOpen) this.options.screen.write("\n");
    this.lineOpen &&= !this.held;
    this.held?.();
    this.redraw();
  }

  private flushMarkdown(): void {
    if (this.markdown) this.write(this.markdown.flush(), false);
  }

  /**
   * A whole `~` line. `~ retrying in 1.2 s, attempt 2 of 6: REASON` goes to the status line at a terminal;
   * elsewhere it is written, its reason left out when the last retry gave the same. Other `~` lines (a
   * compaction, a partial reply replaced) are written as they are.
   */
  private retried(line: string): void {
    const retry = /^~ (retrying in .*? of \d+)(?:: (.*))?$/.exec(line);
    if (!retry) {
      this.retrying = undefined;
      this.write(`${line}\n`, true);
      return;
    }
    if (this.options.statusLine) {
      this.retrying = line.slice(2);
      this.redraw();
      return;
    }
    const [, when, reason] = retry;
    const same = reason !== undefined && reason === this.retryReason;
    this.retryReason = reason;
    this.write(same ? `~ ${when}\n` : `${line}\n`, true);
  }

  /** A whole `←` line: one that stands for more lines says how to see them. */
  private returned(line: string): void {
    this.retrying = undefined;
    const hint = this.options.resultHint;
    const more = hint !== undefined && / \(\d+ lines\)$/.test(line);
    this.write(`${line}\n`, true);
    if (more) {
      // Under the line, not on it: the painter colours by a line's mark, and the hint is sh's, not the chat's.
      this.notice(this.options.palette.dim(`  ${hint}`));
    }
  }

  private redraw(): void {
    if (!this.options.statusLine || this.ended || this.lineOpen || this.held) return;
    const a = this.activity;
    if (this.begun && a?.state === "idle") {
      this.clear();
      return;
    }
    // `calling shell: make`, `hook preTurn`, `compacting`, `retrying in 1.2 s, attempt 2 of 6: …`.
    const doing = this.retrying ?? (!a || a.state === "idle" ? "waiting" : doingText(a));
    const width = Math.max(20, (this.options.screen.columns || 80) - 1);
    const line = shorten(`${doing} · ${duration(this.elapsedMs)}`, width);
    this.clear();
    this.options.screen.write(this.options.palette.yellow(line));
    this.drawn = [...line].length;
  }

  private clear(): void {
    if (this.drawn === 0) return;
    this.options.screen.write(`\r${" ".repeat(this.drawn)}\r`);
    this.drawn = 0;
  }
}
