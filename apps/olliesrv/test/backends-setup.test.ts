import {
  appendFileSync,
  existsSync,
  lstatSync,
  mkdtempSync,
  readFileSync,
  rmSync,
  statSync,
  symlinkSync,
  writeFileSync,
} from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { parseBackendsConf } from "@ollie/backends";
import { closedPort, MockLlmServer } from "@ollie/backends/testing";
import { execa } from "execa";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { OLLIE, type Ollie, startOllie } from "./harness.js";

describe("ollie init and ollie backends without olliesrv", () => {
  let root: string;
  let mock: MockLlmServer;
  let conf: string;
  beforeAll(async () => {
    root = mkdtempSync(join(tmpdir(), "ollie-init-"));
    conf = join(root, "config", "ollie", "backends.conf");
    mock = await MockLlmServer.start({
      models: ["mock-model", "other-model", "big-model"].map((id) => ({ id })),
    });
  });
  afterAll(async () => {
    await mock.close();
    rmSync(root, { recursive: true, force: true });
  });

  const ollie = (args: string[], env: Record<string, string> = {}) =>
    execa(process.execPath, [OLLIE, ...args], {
      cwd: root,
      env: {
        HOME: root,
        XDG_CONFIG_HOME: join(root, "config"),
        XDG_DATA_HOME: join(root, "data"),
        NAMESPACE: join(root, "ns"),
        PATH: process.env.PATH ?? "/usr/bin:/bin",
        ...env,
      },
      extendEnv: false,
      reject: false,
    });

  it("lists the providers, and refuses one it does not know as a usage mistake", async () => {
    const listed = await ollie(["init"]);
    expect(listed.exitCode).toBe(0);
    expect(listed.stdout).toContain("usage: ollie init PROVIDER");
    expect(listed.stdout).toMatch(
      /^providers \(ollie init PROVIDER\):\n {2}ollama {6}\[local\] ollama at http:\/\/localhost:11434, model qwen3:8b, no key\n {2}openai {6}\[openai\]/m,
    );
    // Each mistake is a unit test of the arguments (src/cli/init-args.test.ts); here, how one reaches a person.
    const unknown = await ollie(["init", "mistral"]);
    expect(unknown.exitCode).toBe(2);
    expect(unknown.stderr).toMatch(
      /^ollie: unknown provider 'mistral' \(ollama, openai, anthropic, gemini, openrouter, copilot, kiro, demo\)\ntry 'ollie init --help' for the usage$/,
    );
    expect(existsSync(conf)).toBe(false);
  });

  it("prints init's own usage for --help, and refuses values that would add lines to the file", async () => {
    const help = await ollie(["init", "--help"]);
    expect([help.exitCode, help.stderr]).toEqual([0, ""]);
    expect(help.stdout).toMatch(
      /^usage: ollie init PROVIDER .*\n.*--no-check.*\nproviders \(ollie init PROVIDER\):\n/s,
    );
    // Every refused value is a unit test (src/cli/init-args.test.ts); here, that one writes nothing.
    const evil = await ollie(["init", "openai", "--model", "m\n[evil]"]);
    expect(evil.exitCode).toBe(2);
    expect(evil.stderr).toContain(
      'ollie: --model takes one line of text, without control characters: "m\\n[evil]"',
    );
    expect(existsSync(conf)).toBe(false);
  });

  it("writes the file, says where the key comes from and that the backend answers", async () => {
    const r = await ollie(
      ["init", "openai", "--url", mock.baseUrl("openai"), "--model", "mock-model", "--key-env", "TEST_KEY"],
      { TEST_KEY: "sk-test" },
    );
    expect(r.stderr).toBe("");
    expect(r.exitCode).toBe(0);
    expect(r.stdout).toBe(
      [
        `wrote ${conf}: [openai], the default: openai at ${mock.baseUrl("openai")}, model mock-model`,
        "the key is read from $TEST_KEY in olliesrv's environment (set in this shell)",
        "olliesrv is not running: it reads the file when it starts",
        "[openai] answers: 3 models (mock-model, other-model, big-model)",
      ].join("\n"),
    );
    expect(statSync(conf).mode & 0o777).toBe(0o600);
    const written = parseBackendsConf(readFileSync(conf, "utf8"));
    expect(written.defaultProfile).toBe("openai");
    expect([...written.profiles.keys()]).toEqual(["openai"]);
  });

  it("refuses to replace an existing file unless --force, and keeps the old one beside it", async () => {
    const before = readFileSync(conf, "utf8");
    const refused = await ollie(["init", "ollama"]);
    expect(refused.exitCode).toBe(1);
    expect(refused.stderr).toBe(
      `ollie: ${conf} exists; 'ollie init --force ollama …' replaces it (keeping it as backends.conf.bak)`,
    );
    expect(readFileSync(conf, "utf8")).toBe(before);

    const keyless = await ollie(["init", "--force", "anthropic", "--url", mock.url]);
    expect(readFileSync(`${conf}.bak`, "utf8")).toBe(before);
    expect(parseBackendsConf(readFileSync(conf, "utf8")).defaultProfile).toBe("claude");
    expect(keyless.stdout).toContain(
      "the key is read from $ANTHROPIC_API_KEY in olliesrv's environment (not set in this shell)",
    );
    expect(keyless.exitCode).toBe(1);
    expect(keyless.stderr).toBe(
      "ollie: [claude] did not answer: no key: key_env names ANTHROPIC_API_KEY, which is not set\n" +
        "  export ANTHROPIC_API_KEY=… where olliesrv starts (and restart it), or use --key-cmd 'COMMAND' to have olliesrv run a command that prints the key; then 'ollie init --force anthropic …' again, or edit the file",
    );
  });

  it("says what to do when the backend does not answer, or does not have the model", async () => {
    const port = await closedPort();
    const down = await ollie(["init", "--force", "ollama", "--url", `http://127.0.0.1:${port}`]);
    expect(down.exitCode).toBe(1);
    expect(down.stderr).toBe(
      `ollie: [local] did not answer: no answer: request to http://127.0.0.1:${port}/api/tags failed: connect ECONNREFUSED 127.0.0.1:${port}\n` +
        "  start Ollama ('ollama serve', then 'ollama pull qwen3:8b') or give its address with --url; olliesrv needs nothing more",
    );

    const cmd = await ollie([
      "init",
      "--force",
      "openrouter",
      "--url",
      mock.baseUrl("openai"),
      "--key-cmd",
      "echo sk-from-a-command",
    ]);
    expect(cmd.exitCode).toBe(0);
    expect(cmd.stdout).toContain(
      "the key is what `echo sk-from-a-command` prints (olliesrv runs it when it needs the key)",
    );
    expect(cmd.stdout).toContain(
      "[openrouter] answers: 3 models, but not anthropic/claude-sonnet-4.5 (mock-model, other-model, big-model)\n" +
        "it does not list anthropic/claude-sonnet-4.5: pick one of its models with --model, then 'ollie init --force openrouter …' again, or edit the file",
    );
    expect(mock.requests.at(-1)?.headers.authorization).toBe("Bearer sk-from-a-command");

    const unchecked = await ollie([
      "init",
      "--force",
      "ollama",
      "--url",
      `http://127.0.0.1:${port}`,
      "--no-check",
    ]);
    expect(unchecked.exitCode).toBe(0);
    expect(unchecked.stdout).not.toContain("answer");
  });

  it("backends: the file olliesrv will read, checked here, when it does not run", async () => {
    const port = Number(/127\.0\.0\.1:(\d+)/.exec(readFileSync(conf, "utf8"))![1]);
    appendFileSync(conf, `\n[mock]\ntype = openai\nurl = ${mock.baseUrl("openai")}\nmodel = mock-model\n`);
    const r = await ollie(["backends"]);
    expect(r.stdout).toBe(
      [
        "  PROFILE  TYPE    MODEL       ANSWERS",
        `* local    ollama  qwen3:8b    no answer: request to http://127.0.0.1:${port}/api/tags failed: connect ECONNREFUSED 127.0.0.1:${port}`,
        "  mock     openai  mock-model  ok: 3 models (mock-model, other-model, big-model)",
        `(* the default; from ${conf}, which olliesrv reads when it starts (it is not running); checked with this shell's environment)`,
      ].join("\n"),
    );
    expect(r.exitCode).toBe(1);
    expect(r.stderr).toBe(
      "ollie: the default backend 'local' does not answer; 'ollie init' lists the providers it can set up",
    );
  });

  it("writes a backends.conf that is a symbolic link through to where it leads", async () => {
    const dotfiles = join(root, "dotfiles");
    const target = join(dotfiles, "backends.conf");
    rmSync(conf);
    symlinkSync(target, conf);
    const first = await ollie(["init", "ollama", "--no-check"]);
    expect(first.stderr).toBe("");
    expect(first.stdout).toContain(`wrote ${target} (${conf} links to it): [local]`);
    expect(lstatSync(conf).isSymbolicLink()).toBe(true);
    const written = readFileSync(target, "utf8");
    expect(parseBackendsConf(written).defaultProfile).toBe("local");

    const again = await ollie(["init", "--force", "openai", "--key-env", "TEST_KEY", "--no-check"]);
    expect(again.exitCode).toBe(0);
    expect(lstatSync(conf).isSymbolicLink()).toBe(true);
    expect(parseBackendsConf(readFileSync(target, "utf8")).defaultProfile).toBe("openai");
    expect(readFileSync(`${conf}.bak`, "utf8")).toBe(written);
  });
});

describe("ollie backends with olliesrv running", () => {
  let o: Ollie;
  beforeAll(async () => {
    o = await startOllie("olliesrv-backends-", {
      setup: (config) =>
        appendFileSync(
          join(config, "backends.conf"),
          "[keyed]\ntype = openai\nurl = http://127.0.0.1:1/v1\nmodel = m\nkey_env = ONLY_IN_THE_SHELL\n",
        ),
    });
  });
  afterAll(async () => {
    await o.stop();
    await o.remove();
  });

  it("shows olliesrv's own view: its profiles, checked by it with its environment's keys", async () => {
    const r = await execa(process.execPath, [OLLIE, "-a", o.address, "backends"], {
      cwd: o.work,
      env: { ...o.env, ONLY_IN_THE_SHELL: "sk-here-but-not-there" },
      extendEnv: false,
      reject: false,
    });
    const conf = join(o.root, "config", "ollie", "backends.conf");
    expect(r.stdout).toBe(
      [
        "  PROFILE  TYPE    MODEL        ANSWERS",
        "* mock     openai  mock-model   ok: 3 models (mock-model, other-model, big-model)",
        "  other    openai  other-model  ok: 3 models (mock-model, other-model, big-model)",
        "  down     ollama  nothing      no answer: request to http://127.0.0.1:1/api/tags failed: connect ECONNREFUSED 127.0.0.1:1",
        "  keyed    openai  m            no key: key_env names ONLY_IN_THE_SHELL, which is not set",
        `(* the default; as olliesrv has them, from ${conf}; it checked them)`,
      ].join("\n"),
    );
    expect(r.exitCode).toBe(0);
    // For programs: the status first, then the profile, and the detail the table's verdict is made from.
    expect(await o.read("backends.check")).toBe(
      [
        `# ${conf}`,
        "ok\t* mock\topenai\tmock-model\t3 models (mock-model, other-model, big-model)",
        "ok\t  other\topenai\tother-model\t3 models (mock-model, other-model, big-model)",
        "no-answer\t  down\tollama\tnothing\trequest to http://127.0.0.1:1/api/tags failed: connect ECONNREFUSED 127.0.0.1:1",
        "no-key\t  keyed\topenai\tm\tkey_env names ONLY_IN_THE_SHELL, which is not set",
        "",
      ].join("\n"),
    );
  });

  it("says so when olliesrv refuses the attach, or the address is wrong, and writes nothing", async () => {
    const conf = join(o.root, "config", "ollie", "backends.conf");
    const before = readFileSync(conf, "utf8");
    const wrongKey = join(o.root, "wrong.key");
    writeFileSync(wrongKey, "not the key\n", { mode: 0o600 });
    const ollie = (...args: string[]) =>
      execa(process.execPath, [OLLIE, ...args], { cwd: o.work, env: o.env, extendEnv: false, reject: false });
    for (const args of [
      ["-a", o.address, "-k", wrongKey, "init", "--force", "ollama", "--no-check"],
      ["-a", o.address, "-k", wrongKey, "backends"],
      ["-a", o.address, "-u", "somebody", "backends"],
    ]) {
      const r = await ollie(...args);
      expect(r.exitCode, args.join(" ")).toBe(1);
      expect(r.stderr).toMatch(
        new RegExp(`^ollie: olliesrv at ${o.address} refused to attach "[^"]+": authentication failed`),
      );
      expect(r.stdout).toBe("");
    }
    const nowhere = await ollie("-a", "unix!/dev/null/ollie", "backends");
    expect(nowhere.exitCode).toBe(1);
    expect(nowhere.stderr).toMatch(/^ollie: cannot reach olliesrv at unix!\/dev\/null\/ollie \(.*ENOTDIR/);
    expect(nowhere.stdout).toBe("");
    expect(readFileSync(conf, "utf8")).toBe(before);
    expect(existsSync(`${conf}.bak`)).toBe(false);
  });

  it("init checks here when olliesrv reads another configuration than the one it wrote", async () => {
    const elsewhere = join(o.root, "elsewhere");
    const r = await execa(
      process.execPath,
      [
        OLLIE,
        "-a",
        o.address,
        "init",
        "openai",
        "--url",
        o.mock.baseUrl("openai"),
        "--model",
        "mock-model",
        "--key-env",
        "SHELL_ONLY_KEY",
      ],
      {
        cwd: o.work,
        env: { ...o.env, XDG_CONFIG_HOME: elsewhere, SHELL_ONLY_KEY: "sk-shell" },
        extendEnv: false,
        reject: false,
      },
    );
    expect(r.stderr).toBe("");
    expect(r.exitCode).toBe(0);
    expect(r.stdout).toContain(
      `olliesrv reads ${join(o.root, "config", "ollie", "backends.conf")}, not this file: it runs with another $XDG_CONFIG_HOME\n` +
        "[openai] answers: 3 models (mock-model, other-model, big-model)",
    );
    expect(o.mock.requests.at(-1)?.headers.authorization).toBe("Bearer sk-shell");
  });
});
