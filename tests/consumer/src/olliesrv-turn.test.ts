import { mkdirSync, readFileSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { execa } from "execa";
import { expect, inject, it } from "vitest";
import { projectAt } from "./consumer-project.js";

/** The shipped mock provider, run from the installed @ollie/backends: prints its URL, ends with its stdin. */
const MOCK_PROVIDER = `import { MockLlmServer } from "@ollie/backends/testing";
const mock = await MockLlmServer.start({ models: [{ id: "mock-model", contextLength: 32768 }] });
mock.enqueue(
  {
    text: "I'll write the greeting into a file.",
    toolCalls: [{ name: "file_write", arguments: { path: "greeting.txt", content: "Hello from inside the sandbox!\\n" } }],
  },
  { text: "Done: greeting.txt now holds the greeting." },
);
console.log(mock.baseUrl("openai"));
process.stdin.on("end", () => void mock.close()).resume();
`;

it("the installed olliesrv runs a turn against the mock provider, with a sandboxed file_write", async () => {
  const project = projectAt(inject("consumerDir"));
  const { env } = project;
  const work = join(project.dir, "work");
  mkdirSync(work, { recursive: true });
  writeFileSync(join(project.dir, "mock-provider.mjs"), MOCK_PROVIDER);
  const mock = execa(process.execPath, ["mock-provider.mjs"], {
    cwd: project.dir,
    env,
    extendEnv: false,
    stdin: "pipe",
  });
  const url = await new Promise<string>((resolve, reject) => {
    mock.stdout!.once("data", (chunk: Buffer) => resolve(chunk.toString().trim()));
    mock.catch(reject);
  });
  mkdirSync(join(env.XDG_CONFIG_HOME!, "ollie"), { recursive: true });
  writeFileSync(
    join(env.XDG_CONFIG_HOME!, "ollie", "backends.conf"),
    `default = mock\n[mock]\ntype = openai\nurl = ${url}\nmodel = mock-model\n`,
  );

  const daemon = execa(project.bin("olliesrv"), ["--print-address"], {
    cwd: project.dir,
    env,
    extendEnv: false,
    reject: false,
  });
  let log = "";
  daemon.stderr!.on("data", (chunk: Buffer) => {
    log += chunk.toString();
  });
  try {
    // Ready when it prints its address (its sessions restored), whatever its log says.
    await new Promise<void>((resolve, reject) => {
      daemon.stdout!.once("data", () => resolve());
      daemon.then(() => reject(new Error(`olliesrv exited before serving:\n${log}`)));
    });
    const ollie = (...args: string[]) =>
      execa(project.bin("ollie"), args, { cwd: work, env, extendEnv: false });
    const session = (await ollie("new", "--agent", "coding")).stdout.trim();
    const asked = await ollie("ask", session, "Write a greeting into greeting.txt");
    expect(asked.stdout).toContain("Done: greeting.txt now holds the greeting.");
    expect(readFileSync(join(work, "greeting.txt"), "utf8")).toBe("Hello from inside the sandbox!\n");
  } finally {
    daemon.kill("SIGTERM");
    mock.stdin!.end();
    await mock.catch(() => {});
  }
  const ended = await daemon;
  expect(ended.exitCode, `olliesrv's log:\n${log}`).toBe(0);
});
