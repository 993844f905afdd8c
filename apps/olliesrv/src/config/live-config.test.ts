import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import type { BackendPool } from "@ollie/backends";
import { writeFileAtomic } from "@ollie/config-file";
import { createLogger } from "@ollie/log";
import { afterEach, describe, expect, it, vi } from "vitest";
import { DEFAULTS, type OlliePaths } from "../paths.js";
import { LiveConfig } from "./live-config.js";

const roots: string[] = [];
const open: LiveConfig[] = [];
afterEach(() => {
  for (const c of open.splice(0)) c.close();
  for (const r of roots.splice(0)) rmSync(r, { recursive: true, force: true });
});

/** A configuration directory of its own, and a real logger whose lines are kept. */
function place() {
  const root = mkdtempSync(join(tmpdir(), "ollie-live-config-"));
  roots.push(root);
  const config = join(root, "config");
  mkdirSync(config);
  const paths: OlliePaths = {
    config,
    data: root,
    cache: join(root, "cache"),
    sessions: join(root, "sessions"),
    corrupt: join(root, "corrupt"),
    ownerKey: join(root, "owner.key"),
    namespace: join(root, "ns"),
    defaults: DEFAULTS,
  };
  const lines: string[] = [];
  const log = createLogger({
    program: "olliesrv",
    stream: { write: (line: string) => lines.push(line) },
  });
  return { paths, lines, log, file: join(config, "backends.conf") };
}

async function load(at: ReturnType<typeof place>) {
  const config = await LiveConfig.load(at.paths, at.log, {});
  open.push(config);
  return config;
}

/** Waits (a few seconds at most) for `done`, which a watched change makes true. */
async function eventually(done: () => boolean): Promise<void> {
  await vi.waitFor(() => expect(done()).toBe(true), { timeout: 5000 });
}

const profile = (name: string, extra = "") =>
  `default = ${name}\n[${name}]\ntype = ollama\nurl = http://127.0.0.1:1\nmodel = m\n${extra}`;

describe("backends.conf read again while olliesrv runs", () => {
  it("keeps the backends in use when the new file is broken, naming its file and line", async () => {
    const at = place();
    writeFileSync(at.file, profile("a"));
    const config = await load(at);
    const changes: BackendPool[] = [];
    config.onBackendsChange((old) => changes.push(old));
    const first = config.backends;

    writeFileSync(at.file, "default = a\n[a]\nmodle = m\n");
    await expect(config.reload()).rejects.toThrow(
      `${at.file}:3: unknown key 'modle' in [a] (olliesrv keeps the backends it had)`,
    );
    expect(config.backends).toBe(first);
    expect(changes).toEqual([]);
    expect(at.lines.join("")).toContain(
      `WARN  olliesrv: ${at.file}:3: unknown key 'modle' in [a]; the backends stay as they were until it is fixed`,
    );

    writeFileSync(at.file, profile("b", "key = sk-RELOADED-123\n"));
    await config.reload();
    expect(config.backends.names()).toEqual(["b"]);
    expect(changes).toEqual([first]);
    expect(at.lines.join("")).toContain(`INFO  olliesrv: read ${at.file}: b; default backend: b`);
    // The reloaded key is one of the log's secrets from now on.
    at.log.info("the key is sk-RELOADED-123");
    expect(at.lines.at(-1)).toContain("the key is [redacted]");

    // Written again the same: nothing changed, nobody is told.
    writeFileSync(at.file, profile("b", "key = sk-RELOADED-123\n"));
    await config.reload();
    expect(changes).toHaveLength(1);
  });

  it("takes a file created after the start and one removed, and watches agents/ made after it", async () => {
    const at = place();
    const config = await load(at);
    expect(config.backends.conf.file).toBe(join(DEFAULTS, "backends.conf"));
    config.watch();

    await writeFileAtomic(at.file, profile("mine"));
    await eventually(() => config.backends.conf.file === at.file);
    expect(config.backends.conf.defaultProfile).toBe("mine");

    mkdirSync(join(at.paths.config, "agents"));
    writeFileSync(join(at.paths.config, "agents", "helper.json"), '{ "prompt": "hi", ');
    await eventually(() => at.lines.some((l) => l.includes("helper.json")));
    expect(at.lines.find((l) => l.includes("helper.json"))).toMatch(
      new RegExp(
        `WARN  olliesrv: ${join(at.paths.config, "agents", "helper.json")}:1:\\d+: not JSON: .*; sessions with this profile are refused until it is fixed`,
      ),
    );

    rmSync(at.file);
    await eventually(() => config.backends.conf.file === join(DEFAULTS, "backends.conf"));
    expect(config.backends.names()).toEqual(["local"]);
  });

  it("warns when a profile's address or key source changes, or a new one runs a key_cmd", async () => {
    const at = place();
    writeFileSync(at.file, profile("a", "key_env = A_KEY\n"));
    const config = await load(at);
    const warnings = () => at.lines.filter((l) => l.includes(" WARN "));

    writeFileSync(at.file, profile("a", "key_env = A_KEY\nheader = X-Title: ollie\n"));
    await config.reload();
    expect(warnings()).toEqual([]);

    writeFileSync(
      at.file,
      "default = a\n[a]\ntype = ollama\nurl = http://elsewhere:1\nmodel = m\nkey_cmd = cat /tmp/k\n" +
        "[b]\ntype = ollama\nmodel = m\nkey_cmd = echo b\n[c]\ntype = ollama\nmodel = m\n",
    );
    await config.reload();
    expect(warnings()).toEqual([
      expect.stringContaining(
        `WARN  olliesrv: ${at.file}: [a] sends its requests to http://elsewhere:1 (was http://127.0.0.1:1), and takes its key from the key_cmd \`cat /tmp/k\` (was $A_KEY): olliesrv uses it from now on (if you did not make this change, something else wrote the file)`,
      ),
      expect.stringContaining(`WARN  olliesrv: ${at.file}: [b] is new, and runs the key_cmd \`echo b\`: `),
    ]);
  });

  it("changes nothing once closed: a reload under way tells nobody, and close waits for it", async () => {
    const at = place();
    writeFileSync(at.file, profile("a"));
    const config = await load(at);
    const changes: BackendPool[] = [];
    config.onBackendsChange((old) => changes.push(old));
    const first = config.backends;

    writeFileSync(at.file, profile("b"));
    let reloaded = false;
    void config.reload().finally(() => {
      reloaded = true;
    });
    await config.close();
    expect(reloaded).toBe(true);
    expect(changes).toEqual([]);
    expect(config.backends).toBe(first);
    await expect(config.reload()).rejects.toThrow("olliesrv is stopping");
  });
});

describe("agent profiles read again", () => {
  it("make agents from a profile's last good version while its file is broken", async () => {
    const at = place();
    const agents = join(at.paths.config, "agents");
    mkdirSync(agents);
    const file = join(agents, "helper.json");
    writeFileSync(file, JSON.stringify({ prompt: "first", maxSteps: 5 }));
    const config = await load(at);
    expect((await config.profiles.get("helper")).config.prompt).toBe("first");

    writeFileSync(file, '{\n  "prompt": "second",\n  "maxSteps": 5,,\n}\n');
    const kept = await config.profiles.get("helper");
    expect(kept.config.prompt).toBe("first");
    expect(at.lines.join("")).toMatch(
      new RegExp(
        `WARN  olliesrv: ${file}:3:17: not JSON: expected a key in double quotes; agents are made from the version before until it is fixed`,
      ),
    );
    // Said once, not at every use.
    await config.profiles.get("helper");
    expect(at.lines.filter((l) => l.includes("the version before"))).toHaveLength(1);

    writeFileSync(file, JSON.stringify({ prompt: "third", temperature: 9 }));
    expect((await config.profiles.get("helper")).config.prompt).toBe("first");
    expect(at.lines.join("")).toContain(`${file}:1:33: temperature: Too big`);

    writeFileSync(file, JSON.stringify({ prompt: "fourth" }));
    expect((await config.profiles.get("helper")).config.prompt).toBe("fourth");

    // A profile that was never good is refused, with what is wrong with it.
    writeFileSync(join(agents, "broken.json"), "{");
    await expect(config.profiles.get("broken")).rejects.toThrow(/broken\.json:1:\d+: not JSON/);
    // A removed profile is gone: the shipped one of that name takes its place.
    writeFileSync(join(agents, "coding.json"), JSON.stringify({ prompt: "mine" }));
    expect((await config.profiles.get("coding")).config.prompt).toBe("mine");
    rmSync(join(agents, "coding.json"));
    expect((await config.profiles.get("coding")).dir).toBe(join(DEFAULTS, "agents"));
  });
});
