import { createInterface } from "node:readline";
import type { SessionClient } from "./session-client.js";

/**
 * `ollie sh`: a conversation at the terminal. A line is a prompt, streamed back as it comes; `/cmd args`
 * writes `cmd args` to the agent's ctl (`/stop`, `/model x`, `/compact`, …); Ctrl-C stops a running turn
 * and, at the prompt, clears the line; Ctrl-D ends. The session is created in this directory if none is given.
 */
export async function shell(client: SessionClient, given?: string): Promise<number> {
  const session = given ?? (await client.create(JSON.stringify({ cwd: process.cwd() })));
  const ctl = `session/${session}/agent/main/ctl`;
  process.stdout.write(
    `session ${session} — /stop, /model NAME, /compact, /agent NAME, … ; Ctrl-D to leave\n`,
  );
  const rl = createInterface({
    input: process.stdin,
    output: process.stdout,
    prompt: "» ",
    historySize: 1000,
  });
  let running: AbortController | undefined;
  rl.on("SIGINT", () => {
    if (running) {
      void client.write(ctl, "stop\n").catch(() => {});
      process.stdout.write("\n[stopping]\n");
    } else {
      rl.write(null, { ctrl: true, name: "u" });
      process.stdout.write("\n");
      rl.prompt();
    }
  });
  rl.prompt();
  for await (const raw of rl) {
    const line = raw.trim();
    if (line === "") {
      rl.prompt();
      continue;
    }
    if (line.startsWith("/")) {
      await client
        .write(ctl, `${line.slice(1)}\n`)
        .catch((e: unknown) => process.stdout.write(`error: ${(e as Error).message}\n`));
      rl.prompt();
      continue;
    }
    running = new AbortController();
    try {
      const outcome = await client.ask(session, line, (chunk) => process.stdout.write(chunk), running.signal);
      if (outcome !== "done") process.stdout.write(`[${outcome}]\n`);
    } catch (error) {
      process.stdout.write(`error: ${(error as Error).message}\n`);
    } finally {
      running = undefined;
    }
    rl.prompt();
  }
  // The terminal is done with: let go of it, so nothing keeps the process alive.
  process.stdin.destroy();
  return 0;
}
