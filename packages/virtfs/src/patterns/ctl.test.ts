import { describe, expect, it } from "vitest";
import { servedPerTest } from "../__fixtures__/serve-tree.js";
import { dir, file } from "../spec/node-spec.js";
import { ctl } from "./ctl.js";

const serve = servedPerTest();

describe("ctl", () => {
  const calls: string[] = [];
  const tree = () =>
    dir("/", [
      file(
        "ctl",
        ctl({
          stop: () => void calls.push("stop"),
          model: ([name], ctx) => {
            if (!name) throw new Error("usage: model NAME");
            calls.push(`model ${name} by ${ctx.uname}`);
          },
          say: (_args, ctx) => void calls.push(`say ${ctx.rest}`),
        }),
      ),
    ]);

  it("runs each written line as a command", async () => {
    calls.length = 0;
    const served = await serve(tree());
    const fsys = await served.attach("owner");
    await fsys.writeFile("ctl", "stop\nmodel  big-one\n\nsay hello   world\n");
    expect(calls).toEqual(["stop", "model big-one by owner", "say hello   world"]);
    expect((await fsys.readFile("ctl")).toString()).toBe("model\nsay\nstop\n");
  });

  it("answers an unknown or failing command with an error that says what was wrong", async () => {
    calls.length = 0;
    const served = await serve(tree());
    const fsys = await served.attach();
    await expect(fsys.writeFile("ctl", "frobnicate now\n")).rejects.toThrow(
      "unknown command 'frobnicate'; commands: model, say, stop",
    );
    await expect(fsys.writeFile("ctl", "model\n")).rejects.toThrow("model: usage: model NAME");
    await expect(fsys.writeFile("ctl", "toString\n")).rejects.toThrow("unknown command 'toString'");
    expect(calls).toEqual([]);
  });
});
