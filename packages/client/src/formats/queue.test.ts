import { describe, expect, it } from "vitest";
import { ReplyFormatError } from "../errors.js";
import { parseQueue } from "./queue.js";

const P = "session/1-a/agent/main/queue";

describe("an agent's waiting prompts (queue)", () => {
  it("reads number, writer and the whole text of each line, oldest first", () => {
    expect(
      parseQueue(
        '7\tglenda\t"run the tests again"\n8\t1-a.helper\t"review:\\n\\tsrc/main.ts \\"now\\""\n-\t-\t"restored"\n',
        P,
      ),
    ).toEqual([
      { number: 7, from: "glenda", text: "run the tests again" },
      { number: 8, from: "1-a.helper", text: 'review:\n\tsrc/main.ts "now"' },
      { number: undefined, from: undefined, text: "restored" },
    ]);
    expect(parseQueue("", P)).toEqual([]);
  });

  it("refuses a line that is not a queued prompt's, naming the file", () => {
    for (const line of [
      "7\tglenda\trun the tests",
      '0\tglenda\t"x"',
      'x\tglenda\t"x"',
      '7\t\t"x"',
      '7\tglenda\t"x"\textra',
      '7\tglenda\t"unterminated',
      "7\tglenda",
    ]) {
      expect(() => parseQueue(`${line}\n`, P)).toThrow(ReplyFormatError);
      expect(() => parseQueue(`${line}\n`, P)).toThrow(P);
    }
  });
});
