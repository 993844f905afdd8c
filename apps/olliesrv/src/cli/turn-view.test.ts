import type { AgentActivity } from "@ollie/client";
import { describe, expect, it } from "vitest";
import { palette } from "./colour.js";
import { TurnView } from "./turn-view.js";

const calling: AgentActivity = {
  state: "calling",
  tools: ["shell"],
  arg: "sleep 1",
  since: undefined,
  turnStarted: undefined,
};

/** A TurnView on a fake terminal whose clock the test moves. */
function view(statusLine = true, markdown?: (block: string) => string) {
  let written = "";
  let now = 0;
  const v = new TurnView({
    screen: { write: (t: string) => (written += t), columns: 40 },
    palette: palette(false),
    statusLine,
    echoed: "hi",
    now: () => now,
    ...(markdown && { markdown }),
  });
  return {
    v,
    get written() {
      return written;
    },
    /** What a terminal shows: each \r goes back to the start of the line, which the next text overwrites. */
    get shown() {
      const lines: string[] = [];
      for (const line of written.split("\n")) {
        let cells: string[] = [];
        let at = 0;
        for (const part of line.split("\r")) {
          const chars = [...part];
          cells = [...cells.slice(0, at), ...chars, ...cells.slice(at + chars.length)];
          at = 0;
        }
        lines.push(cells.join("").trimEnd());
      }
      return lines.join("\n");
    },
    tick: (ms: number) => {
      now += ms;
    },
  };
}

describe("a turn in ollie sh", () => {
  it("keeps a status line under the text, cleared while text streams and gone at the end", () => {
    const t = view();
    t.v.chunk("» hi\n\n");
    t.v.update(calling);
    t.tick(2500);
    t.v.chunk("→ shell {}\n");
    expect(t.shown).toBe("→ shell {}\ncalling shell: sleep 1 · 2.5s");
    t.v.update({ ...calling, state: "thinking", tools: [], arg: "" });
    t.v.chunk("Some te");
    expect(t.shown).toBe("→ shell {}\nSome te");
    t.v.chunk("xt.\n");
    expect(t.shown).toBe("→ shell {}\nSome text.\nthinking · 2.5s");
    t.v.notice("[stopping]");
    expect(t.shown).toBe("→ shell {}\nSome text.\n[stopping]\nthinking · 2.5s");
    t.v.finish("[done] 1 in / 2 out tokens");
    expect(t.shown).toBe("→ shell {}\nSome text.\n[stopping]\n[done] 1 in / 2 out tokens\n");
    expect(t.written).not.toContain("\u001b");
  });

  it("draws no status line off a terminal", () => {
    const t = view(false);
    t.v.update(calling);
    t.v.chunk("text\n");
    t.v.finish("[done]");
    expect(t.written).toBe("text\n[done]\n");
  });

  it("renders the model's text a block at a time, and what is held once a tool call comes", () => {
    const t = view(false, (block) => `<${block}>`);
    t.v.chunk("» hi\n\n", "prompt");
    t.v.chunk("A **first", "text");
    t.v.chunk("** block.\n\nAnd a", "text");
    expect(t.written).toBe("<A **first** block.>\n\n");
    t.v.chunk(" second.\n", "text");
    t.v.chunk('→ shell {"command":"ls"}\n', "call");
    t.v.chunk("Last words", "text");
    t.v.finish("[done]");
    expect(t.written).toBe(
      '<A **first** block.>\n\n<And a second.>\n→ shell {"command":"ls"}\n<Last words>\n[done]\n',
    );
  });

  it("shows a retry on the status line at a terminal, and says why the turn failed once", () => {
    const t = view();
    t.v.update({ ...calling, state: "thinking", tools: [], arg: "" });
    t.v.chunk("~ retrying in 0.3 s, attempt 2 of 2: down: ECONN", "retry");
    t.v.chunk("REFUSED\n", "retry");
    expect(t.shown).toMatch(/^retrying in 0\.3 s, attempt 2 of 2: dow…$/);
    expect(t.v.failureShown).toBe(false);
    t.v.chunk("! down: ECONNREFUSED\n", "error");
    expect(t.v.failureShown).toBe(true);
    expect(t.shown).toBe("! down: ECONNREFUSED\nthinking · 0.0s");
  });

  it("off a terminal, writes each retry, its reason only when it is not the last one's", () => {
    const t = view(false);
    for (const [n, reason] of [
      [2, "503"],
      [3, "503"],
      [4, "timeout"],
    ] as const)
      t.v.chunk(`~ retrying in 1 s, attempt ${n} of 6: ${reason}\n`, "retry");
    t.v.chunk("~ compacted: 9000 → 2000 tokens\n", "retry");
    expect(t.written).toBe(
      "~ retrying in 1 s, attempt 2 of 6: 503\n~ retrying in 1 s, attempt 3 of 6\n" +
        "~ retrying in 1 s, attempt 4 of 6: timeout\n~ compacted: 9000 → 2000 tokens\n",
    );
  });

  it("says how to see a result whole under a line that stands for more, and writes above a question asked", () => {
    let written = "";
    const v = new TurnView({
      screen: { write: (t: string) => (written += t) },
      palette: palette(false),
      statusLine: false,
      resultHint: "/last shows it all",
    });
    v.chunk("← shell: one line\n", "result");
    v.chunk("← shell: first (3 ", "result");
    v.chunk("lines)\n", "result");
    expect(written).toBe("← shell: one line\n← shell: first (3 lines)\n  /last shows it all\n");
    written = "";
    let prompts = 0;
    v.hold(() => prompts++);
    v.chunk("· a note\n", "note");
    expect([written, prompts]).toEqual(["\r\u001b[K· a note\n", 1]);
    v.release();
  });
});
