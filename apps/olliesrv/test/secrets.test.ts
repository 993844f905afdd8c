import { appendFileSync } from "node:fs";
import { join } from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { type Ollie, startOllie } from "./harness.js";

let o: Ollie;
beforeAll(async () => {
  o = await startOllie("olliesrv-secrets-", {
    setup: (config) =>
      appendFileSync(
        join(config, "backends.conf"),
        "[secret]\ntype = openai\nurl = http://glenda:PASSWORD123@127.0.0.1:1/v1?api_key=KEY456\nmodel = m\n",
      ),
  });
});
afterAll(async () => {
  await o.stop();
  await o.remove();
});

describe("credentials in a backend's URL", () => {
  it("never show in the namespace's files, its errors or the daemon's log", async () => {
    const id = await o.create(`agent=coding cwd=${o.work} backend=secret`);
    const agent = `session/${id}/agent/main`;
    const error = await o.read(`${agent}/models`).then(
      () => "",
      (e: Error) => e.message,
    );
    expect(error).toMatch(/request to http:\/\/glenda:\*\*\*@127\.0\.0\.1:1\/v1\S*api_key=\*\*\*/);
    const shown = [
      error,
      await o.read(`${agent}/chat`),
      await o.read(`${agent}/cfg`),
      await o.read(`${agent}/outcome`),
      await o.read("backends"),
      o.log(),
    ].join("\n");
    expect(shown).not.toContain("PASSWORD123");
    expect(shown).not.toContain("KEY456");
  });
});
