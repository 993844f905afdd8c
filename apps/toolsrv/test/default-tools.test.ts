import { randomBytes } from "node:crypto";
import { chmodSync, mkdirSync, readFileSync, statSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { fileURLToPath } from "node:url";
import { hmacAuth, NinepError, NinepServer } from "@ollie/ninep";
import { buildTree, clone, dir, each, text, file as vfile } from "@ollie/virtfs";
import { execa } from "execa";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { BUNDLED, scratch } from "./daemon.js";

const s = scratch("toolsrv-default-tools-");
afterAll(() => s.remove());
const memory = join(s.root, "memory");

/** Runs a built default tool as toolsrv would: JSON on stdin, scalars as OLLIE_ARG_*, in the work directory. */
async function run(tool: string, args: Record<string, unknown>, env: Record<string, string> = {}) {
  const scalars = Object.fromEntries(
    Object.entries(args)
      .filter(([, v]) => typeof v !== "object")
      .map(([k, v]) => [`OLLIE_ARG_${k.toUpperCase()}`, String(v)]),
  );
  const r = await execa(join(BUNDLED, tool), [], {
    cwd: s.work,
    input: JSON.stringify(args),
    env: { PATH: process.env.PATH, OLLIE_MEMORY_PATH: memory, ...scalars, ...env },
    extendEnv: false,
    reject: false,
    stripFinalNewline: false,
  });
  return { out: String(r.stdout), err: String(r.stderr).trim(), code: r.exitCode };
}
const file = (name: string, text: string) => {
  mkdirSync(join(s.work, name, ".."), { recursive: true });
  writeFileSync(join(s.work, name), text);
};

describe("shell", () => {
  it("runs a command with stderr folded into the output, and keeps its exit status", async () => {
    expect(await run("shell", { command: "echo out; echo err >&2; pwd" })).toEqual({
      out: `out\nerr\n${s.work}\n`,
      err: "",
      code: 0,
    });
    expect((await run("shell", { command: "exit 7" })).code).toBe(7);
  });
});

describe("file_read", () => {
  beforeAll(() => file("notes.txt", "one\ntwo\nthree\n"));

  it("reads with line numbers, in pages", async () => {
    expect((await run("file_read", { path: "notes.txt" })).out).toBe("1\tone\n2\ttwo\n3\tthree\n");
    expect((await run("file_read", { path: "notes.txt", offset: 2, limit: 1 })).out).toBe(
      "2\ttwo\n[1 more lines: read on with offset 3]\n",
    );
  });

  it("says what is wrong with a path it cannot read", async () => {
    expect(await run("file_read", { path: "missing.txt" })).toMatchObject({
      code: 1,
      err: `${join(s.work, "missing.txt")}: no such file or directory`,
    });
    expect((await run("file_read", { path: "." })).err).toBe(`${s.work} is a directory`);
    file("blob.bin", "a\u0000b");
    expect((await run("file_read", { path: "blob.bin" })).err).toMatch(/looks binary/);
    expect((await run("file_read", { path: "notes.txt", offset: 9 })).err).toMatch(
      /has 3 lines; offset 9 is past the end/,
    );
    expect((await run("file_read", {})).err).toBe("missing argument 'path'");
  });
});

describe("file_write", () => {
  it("creates a file and its directories, and replaces one keeping its mode", async () => {
    expect((await run("file_write", { path: "deep/new/file.txt", content: "hello" })).out).toBe(
      `created ${join(s.work, "deep/new/file.txt")} (5 bytes)\n`,
    );
    file("script.sh", "old");
    const script = join(s.work, "script.sh");
    chmodSync(script, 0o755);
    expect((await run("file_write", { path: "script.sh", content: "#!/bin/sh\n" })).out).toMatch(
      /^replaced /,
    );
    expect(readFileSync(script, "utf8")).toBe("#!/bin/sh\n");
    expect(statSync(script).mode & 0o777).toBe(0o755);
    expect((await run("file_write", { path: "deep", content: "x" })).err).toBe(
      `${join(s.work, "deep")} is a directory`,
    );
  });
});

describe("file_edit", () => {
  it("replaces one exact occurrence, or all when asked", async () => {
    file("code.ts", "const a = 1;\nconst b = 1;\n");
    expect(
      (await run("file_edit", { path: "code.ts", old_string: "a = 1", new_string: "a = 2" })).out,
    ).toMatch(/^replaced 1 occurrence in /);
    expect(
      (await run("file_edit", { path: "code.ts", old_string: "= ", new_string: ":= ", replace_all: true }))
        .out,
    ).toMatch(/^replaced 2 occurrences/);
    expect(readFileSync(join(s.work, "code.ts"), "utf8")).toBe("const a := 2;\nconst b := 1;\n");
  });

  it("refuses text that is missing, not unique, empty or unchanged", async () => {
    file("code2.ts", "x\nx\n");
    const edit = (old_string: string, new_string = "y") =>
      run("file_edit", { path: "code2.ts", old_string, new_string });
    expect((await edit("z")).err).toMatch(/old_string was not found in .*code2\.ts/);
    expect((await edit("x")).err).toMatch(/old_string occurs 2 times .*set replace_all/);
    expect((await edit("")).err).toMatch(/old_string is empty/);
    expect((await edit("x", "x")).err).toMatch(/the same: nothing would change/);
    expect((await run("file_edit", { path: "gone.ts", old_string: "a", new_string: "b" })).err).toMatch(
      /no such file/,
    );
    expect(readFileSync(join(s.work, "code2.ts"), "utf8")).toBe("x\nx\n");
  });
});

describe("file_glob", () => {
  it("finds paths by pattern", async () => {
    file("src/a.ts", "");
    file("src/lib/b.ts", "");
    file("src/lib/c.js", "");
    expect((await run("file_glob", { pattern: "src/**/*.ts" })).out).toBe("src/a.ts\nsrc/lib/b.ts\n");
    expect((await run("file_glob", { pattern: "*.{ts,js}", path: "src/lib" })).out).toBe("b.ts\nc.js\n");
    expect((await run("file_glob", { pattern: "*.rs" })).out).toMatch(/^no files under .* match \*\.rs/);
    expect((await run("file_glob", { pattern: "*", path: "notes.txt" })).err).toMatch(/is not a directory/);
  });
});

describe("file_grep", () => {
  it("prints path:line:text for matches, with case and glob filters", async () => {
    file("grep/one.ts", "import x\nTODO: fix\n");
    file("grep/two.md", "todo later\n");
    file("grep/bin.dat", "TODO\u0000");
    expect((await run("file_grep", { pattern: "TODO", path: "grep" })).out).toBe("one.ts:2:TODO: fix\n");
    expect((await run("file_grep", { pattern: "todo", path: "grep", ignore_case: true })).out).toBe(
      "one.ts:2:TODO: fix\ntwo.md:1:todo later\n",
    );
    expect(
      (await run("file_grep", { pattern: "todo", path: "grep", ignore_case: true, glob: "*.md" })).out,
    ).toBe("two.md:1:todo later\n");
    expect((await run("file_grep", { pattern: "import", path: "grep/one.ts" })).out).toBe(
      "one.ts:1:import x\n",
    );
    expect((await run("file_grep", { pattern: "(", path: "grep" })).err).toMatch(
      /not a valid regular expression/,
    );
    expect((await run("file_grep", { pattern: "nothing here", path: "grep" })).out).toBe(
      "no matches for /nothing here/\n",
    );
  });
});

describe("reasoning_think", () => {
  it("notes the thought and does nothing else", async () => {
    expect((await run("reasoning_think", { thought: "first the tests" })).out).toBe("noted\n");
  });
});

describe("memory", () => {
  it("remembers notes as Markdown files and recalls the best matches first", async () => {
    const a = await run("memory_remember", { text: "The build uses pnpm and turbo.", tags: ["build"] });
    expect(a.out).toMatch(/^remembered as \d{8}T\d{6}__the-build-uses-pnpm-and-turbo--build\.md\n$/);
    await run("memory_remember", {
      text: "Tests run with vitest; the build must pass first.",
      title: "testing",
    });
    const recalled = (await run("memory_recall", { query: "build" })).out;
    expect(recalled.indexOf("pnpm and turbo")).toBeLessThan(recalled.indexOf("vitest"));
    expect(recalled).toContain("# testing");
    expect((await run("memory_recall", { query: "kubernetes" })).out).toBe(
      'no memories match "kubernetes"\n',
    );
    expect((await run("memory_remember", { text: "  " })).err).toBe(
      "text is empty: there is nothing to remember",
    );
    expect((await run("memory_recall", { query: "build" }, { OLLIE_MEMORY_PATH: "" })).err).toMatch(
      /OLLIE_MEMORY_PATH is not set/,
    );
  });
});

describe("client_9p", () => {
  it("reads, writes and lists the namespace as the agent", async () => {
    const address = `unix!${join(s.root, "ns.sock")}`;
    const ninep = fileURLToPath(new URL("../../../packages/ninep/bin/ninep.js", import.meta.url));
    const server = execa(process.execPath, [ninep, "ramfs", "-a", address], { reject: false });
    await new Promise<void>((resolve) =>
      server.stderr!.on("data", (c: Buffer) => c.toString().includes("serving") && resolve()),
    );
    try {
      const as = { OLLIE_ADDRESS: address, OLLIE_UNAME: "agent1" };
      expect((await run("client_9p", { op: "write", path: "plan", data: "- [ ] step one\n" }, as)).out).toBe(
        "wrote 15 bytes to plan\n",
      );
      expect((await run("client_9p", { op: "read", path: "plan" }, as)).out).toBe("- [ ] step one\n");
      expect((await run("client_9p", { op: "ls", path: "/" }, as)).out).toBe("plan\n");
      expect((await run("client_9p", { op: "delete", path: "plan" }, as)).err).toBe(
        "op must be read, write or ls, not 'delete'",
      );
      expect((await run("client_9p", { op: "read", path: "nope" }, as)).err).toMatch(/^read nope: /);
      expect(
        (
          await run(
            "client_9p",
            { op: "ls", path: "/" },
            { OLLIE_UNAME: "agent1", OLLIE_ADDRESS: `unix!${join(s.root, "none.sock")}` },
          )
        ).err,
      ).toMatch(/^cannot reach the namespace at unix!.*none\.sock: /);
    } finally {
      server.kill("SIGTERM");
      await server;
    }
  });
});

/** A stand-in for olliesrv: `session/new` and each session's main prompt, open only to a proven uname. */
async function fakeOlliesrv(address: string, keys: Record<string, string>) {
  const sessions: Array<{ id: string; spec: unknown; by: string }> = [];
  const prompts: Array<{ session: string; text: string; by: string }> = [];
  const state: { refusal?: string } = {};
  const newFile = vfile(
    "new",
    clone((spec, ctx) => {
      if (state.refusal) throw new NinepError(state.refusal);
      const id = `s${sessions.length + 2}`;
      sessions.push({ id, spec: JSON.parse(spec), by: ctx.uname });
      return id;
    }),
    // Written by the agents, as olliesrv's are: not the tree's owner.
    0o666,
  );
  const sessionDir = (id: string) =>
    dir(id, [
      dir("agent", [
        dir("main", [
          vfile(
            "prompt",
            text(undefined, {
              write: (task, ctx) => void prompts.push({ session: id, text: task, by: ctx.uname }),
            }),
            0o222,
          ),
        ]),
      ]),
    ]);
  const tree = buildTree(
    dir("/", [
      each(
        "session",
        () => ["new", ...sessions.map((x) => x.id)],
        (name) => (name === "new" ? newFile : sessionDir(name)),
      ),
    ]),
  );
  // A key is the bytes of its hex text, as the tools hand OLLIE_KEY to hmacAuthenticator.
  const keyFor = (uname: string) => (keys[uname] === undefined ? undefined : Buffer.from(keys[uname]));
  const server = new NinepServer(tree, { auth: hmacAuth({ keyFor }) });
  await server.listen(address);
  return { sessions, prompts, state, close: () => server.close() };
}

describe("the Ollie namespace, which wants proof of who attaches", () => {
  const key = randomBytes(32).toString("hex");
  const address = `unix!${join(s.root, "ollie.sock")}`;
  const as = (extra: Record<string, string> = { OLLIE_KEY: key }) => ({
    OLLIE_ADDRESS: address,
    OLLIE_UNAME: "s1.main",
    ...extra,
  });
  let ollie: Awaited<ReturnType<typeof fakeOlliesrv>>;
  beforeAll(async () => {
    ollie = await fakeOlliesrv(address, { "s1.main": key });
  });
  afterAll(() => ollie.close());

  it("subagent_spawn starts a child session from the spec and gives it the task, as the proven agent", async () => {
    expect(
      await run("subagent_spawn", { task: "write the tests", name: "tests", model: "m1" }, as()),
    ).toEqual({
      out: "spawned session s2 (agent s2.main) with the task; its result will arrive as a prompt starting [from=s2.main]. Do not poll for it.\n",
      err: "",
      code: 0,
    });
    expect(ollie.sessions).toEqual([
      { id: "s2", spec: { agent: "coding", cwd: s.work, name: "tests", model: "m1" }, by: "s1.main" },
    ]);
    expect(ollie.prompts).toEqual([{ session: "s2", text: "write the tests", by: "s1.main" }]);
    await run("subagent_spawn", { task: "review it", profile: "review", backend: "local" }, as());
    expect(ollie.sessions[1]?.spec).toEqual({ agent: "review", cwd: s.work, backend: "local" });
  });

  it("subagent_spawn says why no child was started: the key, the server's refusal, an empty task", async () => {
    const started = ollie.sessions.length;
    expect(await run("subagent_spawn", { task: "x" }, as({ OLLIE_KEY: "00".repeat(32) }))).toMatchObject({
      code: 1,
      err: `authentication refused for s1.main at ${address}: authentication failed`,
    });
    expect((await run("subagent_spawn", { task: "x" }, as({}))).err).toBe(
      `authentication refused for s1.main at ${address}: authentication required (OLLIE_KEY is not set)`,
    );
    ollie.state.refusal = "spawn depth limit 3 reached";
    try {
      expect((await run("subagent_spawn", { task: "x" }, as())).err).toBe(
        "cannot start the child: session/new: spawn depth limit 3 reached",
      );
    } finally {
      delete ollie.state.refusal;
    }
    expect((await run("subagent_spawn", { task: " " }, as())).err).toBe(
      "task is empty: say what the child should do",
    );
    expect(ollie.sessions).toHaveLength(started);
  });

  it("client_9p works as the proven agent, and says so when the key is wrong", async () => {
    expect((await run("client_9p", { op: "ls", path: "session" }, as())).out).toBe("new\ns2/\ns3/\n");
    const prompt = { op: "write", path: "session/s3/agent/main/prompt", data: "also the docs" };
    expect((await run("client_9p", prompt, as())).out).toBe(
      "wrote 13 bytes to session/s3/agent/main/prompt\n",
    );
    expect(ollie.prompts.at(-1)).toEqual({ session: "s3", text: "also the docs", by: "s1.main" });
    expect((await run("client_9p", prompt, as({ OLLIE_KEY: "00".repeat(32) }))).err).toBe(
      `authentication refused for s1.main at ${address}: authentication failed`,
    );
    expect((await run("client_9p", prompt, as({ OLLIE_UNAME: "" }))).err).toBe(
      "OLLIE_UNAME is not set: toolsrv did not say who this agent is",
    );
  });

  it("subagent_spawn puts the call's trace context in the child's spec, when there is a valid one", async () => {
    const traceparent = "00-4bf92f3577b34da6a3ce929d0e0e4736-00f067aa0ba902b7-01";
    const before = ollie.sessions.length;
    await run(
      "subagent_spawn",
      { task: "traced" },
      as({ OLLIE_KEY: key, TRACEPARENT: traceparent, TRACESTATE: "k=v" }),
    );
    await run("subagent_spawn", { task: "traced" }, as({ OLLIE_KEY: key, TRACEPARENT: traceparent }));
    await run("subagent_spawn", { task: "not traced" }, as({ OLLIE_KEY: key, TRACEPARENT: "00-nonsense" }));
    expect(ollie.sessions.slice(before).map((x) => x.spec)).toEqual([
      { agent: "coding", cwd: s.work, traceparent, tracestate: "k=v" },
      { agent: "coding", cwd: s.work, traceparent },
      { agent: "coding", cwd: s.work },
    ]);
  });
});
