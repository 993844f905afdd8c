import { mkdirSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { execa } from "execa";
import { type ConsumerProject, consumerEnv } from "./consumer-project.js";

/** The installed olliesrv, serving against the shipped mock provider. */
export interface InstalledOllie {
  /** Its HOME, XDG directories and NAMESPACE: what its clients need to find it and prove who they are. */
  env: Record<string, string>;
  /** A directory for sessions to work in. */
  work: string;
  /** What olliesrv has logged so far. */
  log(): string;
  /** Stops olliesrv (SIGTERM), then the mock provider; resolves with olliesrv's exit status. */
  stop(): Promise<number | undefined>;
}

/** The mock provider, run from the installed @ollie/backends: prints its URL, ends with its stdin. */
const mockProvider = (replies: readonly object[]) => `import { MockLlmServer } from "@ollie/backends/testing";
const mock = await MockLlmServer.start({ models: [{ id: "mock-model", contextLength: 32768 }] });
mock.enqueue(...${JSON.stringify(replies)});
console.log(mock.baseUrl("openai"));
process.stdin.on("end", () => void mock.close()).resume();
`;

/**
 * Starts the installed olliesrv with its directories under `root` (a directory of the consumer project, so
 * that the project's packages are found from there), its default backend a mock provider that answers with
 * `replies` in order. Ready when olliesrv prints its address.
 */
export async function startInstalledOllie(
  project: ConsumerProject,
  root: string,
  replies: readonly object[],
): Promise<InstalledOllie> {
  const env = consumerEnv(root);
  const work = join(root, "work");
  mkdirSync(work, { recursive: true });
  writeFileSync(join(root, "mock-provider.mjs"), mockProvider(replies));
  const mock = execa(process.execPath, ["mock-provider.mjs"], {
    cwd: root,
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
    cwd: root,
    env,
    extendEnv: false,
    reject: false,
  });
  let log = "";
  daemon.stderr!.on("data", (chunk: Buffer) => {
    log += chunk.toString();
  });
  const stop = async () => {
    daemon.kill("SIGTERM");
    mock.stdin!.end();
    await mock.catch(() => {});
    return (await daemon).exitCode;
  };
  try {
    // Ready when it prints its address (its sessions restored), whatever its log says.
    await new Promise<void>((resolve, reject) => {
      daemon.stdout!.once("data", () => resolve());
      daemon.then(() => reject(new Error(`olliesrv exited before serving:\n${log}`)));
    });
  } catch (error) {
    await stop();
    throw error;
  }
  return { env, work, log: () => log, stop };
}
