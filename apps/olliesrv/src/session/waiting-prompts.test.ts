import { describe, expect, it } from "vitest";
import { WaitingPrompts } from "./waiting-prompts.js";

const counted = () => {
  const counts: number[] = [];
  return { counts, prompts: new WaitingPrompts((n) => counts.push(n)) };
};

describe("the prompts waiting in an agent's queue", () => {
  it("lists what waits behind a turn, drops the oldest as turns take them, and says each change once", () => {
    const { counts, prompts } = counted();
    prompts.submitted(0, { ticket: 1, from: "glenda", text: "runs at once" });
    prompts.submitted(1, { ticket: 2, from: "glenda", text: "second" });
    prompts.submitted(2, { ticket: 3, from: "s.main", text: 'two\nlines\tand a "quote"' });
    expect(prompts.text()).toBe('2\tglenda\t"second"\n3\ts.main\t"two\\nlines\\tand a \\"quote\\""\n');
    prompts.held(2);
    prompts.held(1);
    prompts.held(1);
    expect(prompts.list.map((p) => p.ticket)).toEqual([3]);
    prompts.held(0);
    expect(prompts.text()).toBe("");
    expect(counts).toEqual([1, 2, 1, 0]);
  });

  it("lists a restored agent's prompts with no number or writer, and nothing once the agent ended", () => {
    const counts: number[] = [];
    const prompts = new WaitingPrompts((n) => counts.push(n), ["[from=s.main]\nfirst", "second"]);
    expect(prompts.text()).toBe('-\t-\t"[from=s.main]\\nfirst"\n-\t-\t"second"\n');
    prompts.restored(["first", "second"]);
    expect(counts).toEqual([]);
    prompts.end();
    prompts.submitted(3, { ticket: 9, from: "glenda", text: "too late" });
    prompts.restored(["again"]);
    expect([prompts.size, counts]).toEqual([0, [0]]);
  });
});
