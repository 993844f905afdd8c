import { describe, expect, it } from "vitest";
import { ChatPieces } from "./chat-pieces.js";

/** A turn's chat as olliesrv writes it (see its ChatLog). */
const CHAT = [
  "» Write hello.txt\nplease\n\n",
  "Writing it.\n",
  '→ file_write {"path":"hello.txt"}\n',
  "← file_write: created hello.txt (18 bytes)\n",
  "~ retrying in 1.1 s, attempt 2 of 6: openai 503\n",
  "· forked to session 1-a (x)\n",
  "Done → hello.txt says “hi”.\n",
  "! the reply hit the output limit\n\n",
].join("");

const kinds = (pieces: { text: string; kind: string }[]) => pieces.map((p) => `${p.kind}:${p.text}`);

describe("cutting a chat into pieces", () => {
  it("tells each line's kind by its first character, a prompt's block whole", () => {
    expect(kinds(new ChatPieces(0).push(CHAT))).toEqual([
      "prompt:» Write hello.txt\n",
      "prompt:please\n",
      "prompt:\n",
      "text:Writing it.\n",
      'call:→ file_write {"path":"hello.txt"}\n',
      "result:← file_write: created hello.txt (18 bytes)\n",
      "retry:~ retrying in 1.1 s, attempt 2 of 6: openai 503\n",
      "note:· forked to session 1-a (x)\n",
      "text:Done → hello.txt says “hi”.\n",
      "error:! the reply hit the output limit\n",
      "text:\n",
    ]);
  });

  it("gives the same kinds and text however the chat is cut, and each piece's byte position", () => {
    const whole = new ChatPieces(100).push(CHAT);
    for (const size of [1, 2, 3, 7]) {
      const cut = new ChatPieces(100);
      const pieces = [];
      for (let i = 0; i < CHAT.length; i += size) pieces.push(...cut.push(CHAT.slice(i, i + size)));
      expect(pieces.map((p) => p.text).join("")).toBe(CHAT);
      // A line streamed in parts keeps its line's kind in every part.
      for (const p of pieces) {
        const line = whole.findLast((w) => w.offset <= p.offset)!;
        expect(p.kind, JSON.stringify(p)).toBe(line.kind);
      }
    }
    const bytes = Buffer.from(CHAT);
    for (const p of whole)
      expect(bytes.subarray(p.offset - 100, p.offset - 100 + Buffer.byteLength(p.text)).toString()).toBe(
        p.text,
      );
  });
});
