import { fileURLToPath } from "node:url";
import { execa } from "execa";
import { expect, it } from "vitest";

it("the README's embedding example runs and prints the conversation", async () => {
  const example = fileURLToPath(new URL("./embed.ts", import.meta.url));
  const run = await execa(process.execPath, ["--import", "tsx", example], { reject: false });
  expect(run.exitCode).toBe(0);
  expect(run.stdout).toBe(
    [
      "Let me count.",
      '-> word_count({"text":"the quick brown fox"})',
      "<- 4",
      "There are 4 words.",
      "done after 1 round(s) of tools, 2 requests",
    ].join("\n"),
  );
  expect(run.stderr.split("\n")).toEqual(["[thinking]", "[calling: word_count]", "[thinking]", "[idle]"]);
});
