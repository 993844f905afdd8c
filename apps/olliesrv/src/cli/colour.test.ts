import { describe, expect, it } from "vitest";
import { chatPainter, colourWanted, palette } from "./colour.js";

describe("colour", () => {
  it("is for terminals only, and never with NO_COLOR or a dumb TERM", () => {
    const tty = { isTTY: true };
    expect(colourWanted(tty, { TERM: "xterm" })).toBe(true);
    expect(colourWanted(tty, { TERM: "xterm", NO_COLOR: "1" })).toBe(false);
    expect(colourWanted(tty, { TERM: "xterm", NO_COLOR: "" })).toBe(true);
    expect(colourWanted(tty, { TERM: "dumb" })).toBe(false);
    expect(colourWanted({ isTTY: false }, { TERM: "xterm" })).toBe(false);
    expect(palette(false).red("x")).toBe("x");
    expect(palette(true).red("x")).toBe("\u001b[31mx\u001b[39m");
  });

  it("colours chat lines by their mark, however the stream is cut", () => {
    const p = palette(true);
    const paint = chatPainter(p);
    const chat = 'Some text → not a call\n→ shell {"command":"ls"}\n← shell: a (2 lines)\n! failed\nmore';
    const whole = chatPainter(p)(chat);
    const pieces = [...chat].map((c) => paint(c)).join("");
    // biome-ignore lint/suspicious/noControlCharactersInRegex: the codes are what it removes
    const plain = (s: string) => s.replaceAll(/\u001b\[\d+m/g, "");
    expect(plain(pieces)).toBe(chat);
    expect(whole).toContain(`${p.cyan('→ shell {"command":"ls"}')}\n`);
    expect(whole).toContain(`${p.red("! failed")}\n`);
    expect(whole.startsWith("Some text → not a call\n")).toBe(true);
    expect(chatPainter(palette(false))(chat)).toBe(chat);
  });
});
