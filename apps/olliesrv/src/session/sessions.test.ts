import { existsSync, mkdtempSync, readdirSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { fileURLToPath } from "node:url";
import { BackendPool, parseBackendsConf } from "@ollie/backends";
import { createLogger } from "@ollie/log";
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import { CheckpointRepos } from "../checkpoints/checkpoint-repos.js";
import { ModelCache } from "../config/model-cache.js";
import { ProfileBook } from "../config/profile-book.js";
import { DEFAULT_SESSION_LIMITS, type SessionLimits } from "./limits.js";
import { Sessions } from "./sessions.js";
import type { AgentMaking, SessionEnvironment, SessionPolicy } from "./slot-context.js";

const DEFAULTS = fileURLToPath(new URL("../../defaults", import.meta.url));

let root: string;
let lines: string[];
beforeEach(() => {
  root = mkdtempSync(join(tmpdir(), "olliesrv-sessions-"));
  lines = [];
});
afterEach(() => rmSync(root, { recursive: true, force: true }));

/**
 * The session layer as the daemon makes it, with nothing connected: sessions come and go, are saved and
 * read back, and no agent is made until one is used.
 */
function sessions(limits: Partial<SessionLimits> = {}): Sessions {
  const log = createLogger({ program: "test", stream: { write: (line: string) => lines.push(line) } });
  const backends = new BackendPool(
    parseBackendsConf("[local]\ntype = ollama\nurl = http://127.0.0.1:1\nmodel = m\n", "backends.conf"),
  );
  const audits: string[] = [];
  const making = {
    backends,
    models: new ModelCache(() => backends, log),
    profiles: new ProfileBook([join(DEFAULTS, "agents")], root, log.warn),
    tmpRoot: join(root, "tmp"),
    checkpoints: new CheckpointRepos(join(root, "data")),
  } as Partial<AgentMaking> as AgentMaking;
  const policy: SessionPolicy = {
    owner: "glenda",
    limits: { ...DEFAULT_SESSION_LIMITS, ...limits },
    audit: (line: string) => audits.push(line),
  };
  const environment: SessionEnvironment = { making, policy };
  return new Sessions(join(root, "sessions"), join(root, "corrupt"), environment, log);
}

const fileOf = (id: string) => join(root, "sessions", `${id}.json`);

describe("the sessions of the daemon", () => {
  it("saves a session it makes before listing it, and another daemon reads it back, paused", async () => {
    const first = sessions();
    const made = await first.create({ name: "work", cwd: root, agent: "coding" });
    expect(first.list()).toEqual([made]);
    const saved = JSON.parse(readFileSync(fileOf(made.id), "utf8")) as Record<string, unknown>;
    expect(saved).toMatchObject({
      id: made.id,
      name: "work",
      cwd: root,
      agents: [{ name: "main", profile: "coding" }],
    });

    const again = sessions();
    expect(await again.restore()).toBe(1);
    const back = again.get(made.id)!;
    expect([back.name, back.cwd, back.agents.get("main")?.choices.profile]).toEqual(["work", root, "coding"]);
    // Paused: nothing is made until the agent is used.
    expect(back.agents.get("main")?.agent).toBeUndefined();
  });

  it("refuses a session past the limit, and an unknown profile, making nothing", async () => {
    const s = sessions({ maxSessions: 1 });
    await s.create({ cwd: root });
    await expect(s.create({ cwd: root })).rejects.toThrow(
      "the session limit 1 is reached: kill a session first",
    );
    await expect(sessions().create({ cwd: root, agent: "nonesuch" })).rejects.toThrow(/nonesuch/);
    expect(readdirSync(join(root, "sessions"))).toHaveLength(1);
  });

  it("kills a session: its file goes, and whoever listens hears it", async () => {
    const s = sessions();
    const made = await s.create({ cwd: root });
    let heard = 0;
    s.onKill(() => heard++);
    await s.kill(made.id);
    expect(existsSync(fileOf(made.id))).toBe(false);
    expect(s.list()).toEqual([]);
    expect(heard).toBe(1);
  });

  it("quarantines a file it cannot use and restores the others", async () => {
    const s = sessions();
    const kept = await s.create({ name: "kept", cwd: root });
    writeFileSync(join(root, "sessions", "1796000000000000000-bad000.json"), "{ not json");
    const again = sessions();
    expect(await again.restore()).toBe(1);
    expect(again.get(kept.id)?.name).toBe("kept");
    expect(readdirSync(join(root, "corrupt"))).toEqual([
      expect.stringMatching(/^1796000000000000000-bad000\.\d+\.json$/),
    ]);
    expect(lines.join("")).toMatch(/unreadable session file .*1796000000000000000-bad000\.json/);
  });
});
