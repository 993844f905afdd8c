import { chownSync, mkdirSync, renameSync, symlinkSync, writeFileSync } from "node:fs";
import { dirname, join } from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { type Ollie, prompt, startOllie } from "./harness.js";
import { installProbe } from "./probe-tool.js";

/**
 * What an agent plants in its directory — a link to the owner key, a linked directory, a `..` name — must
 * not make olliesrv read for it what its sandbox refuses: prompt commands and prompt files are run and read
 * inside the agent's own sandbox, and what they printed is the agent's and the owner's alone.
 */
let o: Ollie;
let outside: string;
const OUTSIDE_WORDS = "words from outside every sandbox";

beforeAll(async () => {
  o = await startOllie("olliesrv-links-", {
    setup: (config) => {
      installProbe(config);
      writeFileSync(
        join(config, "agents", "filer.json"),
        JSON.stringify({ prompt: "The project's rules:\n@AGENTS.md" }),
      );
    },
  });
  outside = join(o.root, "outside.txt");
  writeFileSync(outside, `${OUTSIDE_WORDS}\n`);
});
afterAll(async () => {
  await o.stop();
  await o.remove();
});

/** A directory of the work tree whose AGENTS.md is the link `target` (and whose `docs` links elsewhere). */
function planted(name: string, target: string, docs?: string): string {
  const dir = join(o.work, name);
  mkdirSync(dir);
  if (docs !== undefined) symlinkSync(docs, join(dir, "docs"));
  symlinkSync(target, join(dir, "AGENTS.md"));
  return dir;
}

/** The agent's files that carry what commands printed, and its chat, as the owner reads them. */
async function agentFiles(session: string): Promise<string> {
  const agent = `session/${session}/agent/main`;
  const names = ["systemprompt", "context", "chat", "cfg", "outcome", "activity"];
  return (await Promise.all(names.map((n) => o.read(`${agent}/${n}`)))).join("\n");
}

describe("a planted link in an agent's directory", () => {
  const cases = () => [
    { name: "the owner key, by an absolute link", target: o.keyFile },
    { name: "the owner key, through a linked directory", target: "docs/owner.key", docs: dirname(o.keyFile) },
    { name: "the owner key, by a .. name", target: "../../data/ollie/keys/owner.key" },
    { name: "a file outside every sandbox", target: outside },
  ];

  it("puts nothing it points at into the coding profile's system prompt, which runs cat AGENTS.md", async () => {
    const key = o.ownerKey();
    for (const [i, c] of cases().entries()) {
      const dir = planted(`coding-${i}`, c.target, c.docs);
      const session = await o.create(`agent=coding cwd=${dir}`);
      o.mock.enqueue({ text: "Read the rules." });
      await prompt(o, `session/${session}/agent/main`, "What do the rules say?");
      const files = await agentFiles(session);
      expect(files, c.name).not.toContain(key);
      expect(files, c.name).not.toContain(OUTSIDE_WORDS);
      const system = await o.read(`session/${session}/agent/main/systemprompt`);
      // The prompts it may read were read, inside the sandbox: the shipped system prompt, and the heading.
      expect(system, c.name).toContain("You are an agent running inside Ollie.");
      expect(system, c.name).toContain("The project says (AGENTS.md):");
      // And the model was never sent them.
      expect(JSON.stringify(o.mock.requests.at(-1))).not.toContain(key);
    }
  });

  it("fails a prompt file that names it, saying which file and not what it holds", async () => {
    const key = o.ownerKey();
    for (const [i, c] of cases().entries()) {
      const dir = planted(`filer-${i}`, c.target, c.docs);
      const session = await o.create(`agent=filer cwd=${dir}`);
      const refused = await o.fsys.writeFile(`session/${session}/agent/main/prompt`, "hello").then(
        () => "accepted",
        (error: Error) => error.message,
      );
      expect(refused, c.name).toContain(
        `prompt file '${join(dir, "AGENTS.md")}' cannot be read in the agent's sandbox`,
      );
      expect(refused, c.name).not.toContain(key);
      expect(refused, c.name).not.toContain(OUTSIDE_WORDS);
      expect(await o.read(`session/${session}/agent/main/chat`)).not.toContain(key);
    }
  });

  it("reads a link that stays inside the directory, as before", async () => {
    const dir = join(o.work, "inside");
    mkdirSync(join(dir, "rules"), { recursive: true });
    writeFileSync(join(dir, "rules", "AGENTS.md"), "Tabs, not spaces.\n");
    symlinkSync("rules/AGENTS.md", join(dir, "AGENTS.md"));
    const session = await o.create(`agent=filer cwd=${dir}`);
    o.mock.enqueue({ text: "Tabs." });
    await prompt(o, `session/${session}/agent/main`, "Tabs or spaces?");
    expect(await o.read(`session/${session}/agent/main/systemprompt`)).toContain(
      "The project's rules:\nTabs, not spaces.",
    );
  });
});

describe("what commands printed", () => {
  it("is readable by the agent and the owner alone: another agent is refused its systemprompt and context", async () => {
    const dir = join(o.work, "private");
    mkdirSync(dir);
    const watched = await o.create(`agent=coding cwd=${dir}`);
    o.mock.enqueue({ text: "Done." });
    await prompt(o, `session/${watched}/agent/main`, "Work.");
    const prober = await o.create(`agent=prober cwd=${dir}`);
    const agent = `session/${watched}/agent/main`;
    o.mock.enqueue(
      {
        toolCalls: [
          {
            name: "probe",
            arguments: {
              steps: JSON.stringify([
                { op: "read", path: `${agent}/systemprompt` },
                { op: "read", path: `${agent}/context` },
                { op: "read", path: `${agent}/state` },
              ]),
            },
          },
        ],
      },
      { text: "Probed." },
    );
    await prompt(o, `session/${prober}/agent/main`, "probe");
    const history = JSON.parse(await o.read(`session/${prober}/agent/main/context`)) as Array<{
      role: string;
      content: string;
    }>;
    const me = `${prober}.main`;
    expect(
      history
        .findLast((m) => m.role === "tool")!
        .content.trim()
        .split("\n"),
    ).toEqual([
      `read ${agent}/systemprompt as ${me}: ${agent}/systemprompt: permission denied`,
      `read ${agent}/context as ${me}: ${agent}/context: permission denied`,
      `read ${agent}/state as ${me}: ok idle`,
    ]);
  });
});

describe("a session's directory", () => {
  it("is kept as its real path, made or moved there through a link; a missing one is refused", async () => {
    const real = join(o.work, "real-place");
    mkdirSync(real);
    symlinkSync(real, join(o.root, "link-to-place"));
    const session = await o.create(`cwd=${join(o.root, "link-to-place")}`);
    expect(await o.read(`session/${session}/agent/main/cfg`)).toContain(`\ncwd=${real}\n`);
    const other = await o.create(`cwd=${o.work}`);
    await o.fsys.writeFile(`session/${other}/ctl`, `cd ${join(o.root, "link-to-place")}\n`);
    expect(await o.read(`session/${other}/agent/main/cfg`)).toContain(`\ncwd=${real}\n`);
    await expect(o.create(`cwd=${join(o.root, "nowhere")}`)).rejects.toThrow(
      `${join(o.root, "nowhere")} is not a directory`,
    );
  });
});

describe("an agent's TMPDIR", () => {
  it("is refused when another user owns the directory it is made in, or it is a link", async () => {
    const root = join(o.root, "tmp", `ollie-${process.getuid!()}`);
    const session = await o.create(`cwd=${o.work}`);
    const agent = `session/${session}/agent/main`;
    mkdirSync(root, { recursive: true });
    chownSync(root, 65534, 65534);
    try {
      await expect(o.fsys.writeFile(`${agent}/prompt`, "hello")).rejects.toThrow(
        `${root} is a symbolic link or not this user's own directory`,
      );
    } finally {
      chownSync(root, process.getuid!(), process.getgid!());
    }
    symlinkSync(o.work, join(root, `${session}.main`));
    await expect(o.fsys.writeFile(`${agent}/prompt`, "hello")).rejects.toThrow(
      `${join(root, `${session}.main`)} is a symbolic link or not this user's own directory`,
    );
  });
});

describe("a child session's directory swapped for a link by its parent", () => {
  it("takes the child's tools nowhere: their calls are refused, saying why", async () => {
    const parent = join(o.work, "parent-tree");
    const child = join(parent, "child");
    mkdirSync(child, { recursive: true });
    const session = await o.create(`agent=coding cwd=${child}`);
    const agent = `session/${session}/agent/main`;
    o.mock.enqueue({ text: "Ready." });
    await prompt(o, agent, "Get ready.");
    // What the parent's tools can do to the directory above the child's, which they may write.
    // (A link to the owner key's directory is refused before the launcher, as every grant of it is.)
    renameSync(child, join(parent, "child.before"));
    const elsewhere = join(o.root, "elsewhere");
    mkdirSync(elsewhere);
    writeFileSync(join(elsewhere, "notes.txt"), `${OUTSIDE_WORDS}\n`);
    symlinkSync(elsewhere, child);
    o.mock.enqueue(
      { toolCalls: [{ name: "shell", arguments: { command: "cat notes.txt; ls" } }] },
      { text: "Could not." },
    );
    await prompt(o, agent, "Read what is here.");
    const context = await o.read(`${agent}/context`);
    expect(context).not.toContain(OUTSIDE_WORDS);
    expect(context).toContain(`cannot grant ${child}: it goes through a symbolic link`);
  });
});
