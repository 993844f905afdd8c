import { appendFileSync, existsSync, readFileSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { afterAll, beforeAll, describe, expect, it, vi } from "vitest";
import { type Ollie, startOllie, WAIT } from "./harness.js";

let o: Ollie;
let flag: string;
let runs: string;
beforeAll(async () => {
  o = await startOllie("olliesrv-models-", {
    setup: (config) => {
      // [keyed]'s key_cmd says each time it runs, and fails until the test makes the flag file.
      flag = join(config, "..", "..", "key-ready");
      runs = join(config, "..", "..", "key-runs");
      const conf = join(config, "backends.conf");
      const url = /url = (\S+)/.exec(readFileSync(conf, "utf8"))![1];
      appendFileSync(
        conf,
        `[keyed]\ntype = openai\nurl = ${url}\nmodel = mock-model\nkey_cmd = echo run >> ${runs}; test -e ${flag} && echo sk-test\n`,
      );
    },
  });
});
afterAll(async () => {
  await o.stop();
  await o.remove();
});

const listRequests = () => o.mock.requests.filter((r) => r.path === "/v1/models").length;
const keyRuns = () => (existsSync(runs) ? readFileSync(runs, "utf8").split("\n").length - 1 : 0);
const errorOf = (path: string) =>
  o.read(path).then(
    () => "",
    (e: Error) => e.message,
  );

/** Reads `path` until it gives no error (up to WAIT), and returns it. */
const eventually = (path: string): Promise<string> => vi.waitFor(() => o.read(path), WAIT);

describe("the model lists olliesrv fetches at start", () => {
  it("serve every read of models, which asks no backend and connects no agent", async () => {
    const models = "mock-model\t32768\nother-model\t32768\nbig-model\t32768\n";
    expect(await o.read("models")).toBe(models);
    const id = await o.create(`cwd=${o.work} backend=other`);
    const asked = listRequests();
    for (let i = 0; i < 3; i++) {
      expect(await o.read("models")).toBe(models);
      expect(await o.read(`session/${id}/agent/main/models`)).toBe(models);
    }
    expect(listRequests()).toBe(asked);
    expect(await o.read("stats")).toContain("agents-live 0\n");
    // A model the cached list has is taken without asking the backend again.
    await o.fsys.writeFile(`session/${id}/agent/main/ctl`, "model big-model\n");
    expect(listRequests()).toBe(asked);
  });

  it("say why a list could not be had, and try again later until it comes", async () => {
    const id = await o.create(`cwd=${o.work} backend=keyed`);
    const models = `session/${id}/agent/main/models`;
    expect(await errorOf(models)).toMatch(
      /: backend 'keyed' has not listed its models: \[keyed\]: key_cmd failed \(exit status 1\); olliesrv asks again in \d+ s$/,
    );
    expect(await o.logged("INFO  olliesrv: backend 'keyed' did not list its models")).toMatch(
      /INFO {2}olliesrv: backend 'keyed' did not list its models: \[keyed\]: key_cmd failed \(exit status 1\); olliesrv asks again in 2 s, and after that less often\n/,
    );
    writeFileSync(flag, "");
    expect(await eventually(models)).toContain("mock-model\t32768\n");
    expect(await o.logged("backend 'keyed' lists its models now (3)")).toContain(
      "INFO  olliesrv: backend 'keyed' lists its models now (3)",
    );
    // Once it has the list, reading it runs no key_cmd.
    const ran = keyRuns();
    for (let i = 0; i < 3; i++) await o.read(models);
    expect(keyRuns()).toBe(ran);
  });

  it("are fetched again when backends.conf changes", async () => {
    const conf = join(o.root, "config", "ollie", "backends.conf");
    const asked = listRequests();
    const ran = keyRuns();
    appendFileSync(conf, `[extra]\ntype = openai\nurl = ${o.mock.baseUrl("openai")}\nmodel = big-model\n`);
    await o.fsys.writeFile("ctl", "reload\n");
    const id = await o.create(`cwd=${o.work} backend=extra`);
    expect(await o.read(`session/${id}/agent/main/models`)).toContain("big-model\t32768\n");
    // Every profile is asked again, [keyed] with its key_cmd.
    await vi.waitFor(() => expect(listRequests()).toBe(asked + 4), { timeout: 5000 });
    expect(keyRuns()).toBe(ran + 1);
  });
});
