import { mkdirSync, readFileSync } from "node:fs";
import { join } from "node:path";
import type { MockReply, RecordedRequest } from "@ollie/backends/testing";
import { type File, hmacAuthenticator, NinepClient } from "@ollie/ninep";
import { afterAll, beforeAll, describe, expect, it, vi } from "vitest";
import { type Ollie, startOllie, untilTurns } from "./harness.js";

const SESSIONS = Number(process.env.LOAD_SESSIONS ?? 200);
const ROUNDS = 5;
const WAITERS = Math.min(100, SESSIONS);

type Message = { role: string; content?: string | null };

/** Each agent writes round N into roundN.txt with the shell until it has made ROUNDS calls, then answers. */
function model(request: RecordedRequest): MockReply {
  const messages = (request.body as { messages: Message[] }).messages;
  const round = messages.filter((m) => m.role === "tool").length + 1;
  if (round > ROUNDS) return { text: `Done after ${ROUNDS} rounds.` };
  const who = /load (\d+)/.exec(String(messages.find((m) => m.role === "user")?.content))?.[1];
  return {
    toolCalls: [
      { name: "shell", arguments: { command: `echo "session ${who} round ${round}" > round${round}.txt` } },
    ],
  };
}

let o: Ollie;
beforeAll(async () => {
  o = await startOllie("olliesrv-load-", { mock: { replies: model }, nodeArgs: ["--expose-gc"] });
});
afterAll(async () => {
  await o.stop();
  await o.remove();
});

const stat = async (name: string) => {
  const line = (await o.read("stats")).split("\n").find((l) => l.startsWith(`${name} `))!;
  return Number(line.split(" ")[1]);
};
const MiB = (bytes: number) => `${(bytes / 2 ** 20).toFixed(1)} MiB`;

describe("load", () => {
  it(`runs ${SESSIONS} sessions of ${ROUNDS} tool rounds at once while ${WAITERS} clients block in statewait`, async () => {
    // Warm up (modules, the sandbox probe), then take the baseline with nothing left.
    const warm = await o.create(`agent=coding cwd=${o.work}`);
    await o.fsys.writeFile(`session/${warm}/agent/main/prompt`, "load 0");
    await untilTurns(o, `session/${warm}/agent/main`, 1);
    await o.fsys.writeFile(`session/${warm}/ctl`, "kill\n");
    const baseline = await stat("heap-used");

    const ids: string[] = [];
    for (let i = 0; i < SESSIONS; i++) {
      const cwd = join(o.work, `s${i}`);
      mkdirSync(cwd);
      ids.push(await o.create(`agent=coding cwd=${cwd}`));
    }
    const waiters = await Promise.all(ids.slice(0, WAITERS).map((id) => blockedStatewait(id)));
    await vi.waitFor(async () => expect(await stat("connections")).toBeGreaterThanOrEqual(WAITERS + 1), {
      timeout: 10_000,
    });
    const started = performance.now();
    await Promise.all(ids.map((id, i) => o.fsys.writeFile(`session/${id}/agent/main/prompt`, `load ${i}`)));
    // The first change each sees: the coding profile's prompt commands, run as its agent is made.
    expect(await Promise.all(waiters.map((w) => w.released))).toEqual(Array(WAITERS).fill("prompt commands"));
    await Promise.all(ids.map((id) => untilTurns(o, `session/${id}/agent/main`, 1)));
    const seconds = (performance.now() - started) / 1000;
    const peak = await stat("rss");

    for (const [i, id] of ids.entries()) {
      for (let r = 1; r <= ROUNDS; r++)
        expect(readFileSync(join(o.work, `s${i}`, `round${r}.txt`), "utf8")).toBe(
          `session ${i} round ${r}\n`,
        );
      const saved = JSON.parse(
        readFileSync(join(o.root, "data", "ollie", "sessions", `${id}.json`), "utf8"),
      ) as { agents: Array<{ session: { messages: Message[] } }> };
      const roles = saved.agents[0]!.session.messages.map((m) => m.role);
      expect(roles).toEqual(["user", ...Array(ROUNDS).fill(["assistant", "tool"]).flat(), "assistant"]);
      expect(await o.read(`session/${id}/agent/main/outcome`)).toBe("done\n");
    }
    const loaded = await stat("heap-used");
    await Promise.all(ids.map((id) => o.fsys.writeFile(`session/${id}/ctl`, "kill\n")));
    const after = await stat("heap-used");
    process.stdout.write(
      `load: ${SESSIONS} sessions × ${ROUNDS} tool rounds in ${seconds.toFixed(1)} s ` +
        `(${((SESSIONS * ROUNDS) / seconds).toFixed(0)} tool rounds/s) with ${WAITERS} statewait readers; ` +
        `heap ${MiB(baseline)} before, ${MiB(loaded)} with ${SESSIONS} finished sessions, ${MiB(after)} after they were killed; peak RSS ${MiB(peak)}\n`,
    );
    expect(await stat("sessions")).toBe(0);
    expect(after).toBeLessThan(baseline * 1.2 + 4 * 2 ** 20);
  }, 300_000);
});

/** A client of its own, blocked in a read of the session's statewait; `released` is what it returned. */
async function blockedStatewait(id: string): Promise<{ released: Promise<string> }> {
  const client = await NinepClient.dial(o.address);
  const fsys = await client.attach({ uname: o.owner, authenticator: hmacAuthenticator(o.ownerKey()) });
  // Opening takes the state as it is; the first read returns when it changes.
  const f: File = await fsys.open(`session/${id}/agent/main/statewait`);
  return {
    released: f.read(0).then((b) => {
      client.close();
      return b.toString().trim();
    }),
  };
}
