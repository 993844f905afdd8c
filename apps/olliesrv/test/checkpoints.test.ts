import { createHash } from "node:crypto";
import {
  chmodSync,
  lstatSync,
  mkdirSync,
  readdirSync,
  readFileSync,
  readlinkSync,
  writeFileSync,
} from "node:fs";
import { join, relative } from "node:path";
import { connect, type OllieClient, RefusedError, type Session } from "@ollie/client";
import { execa } from "execa";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { OLLIE, type Ollie, startOllie } from "./harness.js";

// Checkpoints of a session's directory, recorded before a turn's first tool that may write, with the real
// tools under the sandbox, and rewound — files and conversation — through the agent's ctl and `ollie undo`.

let o: Ollie;
let owner: OllieClient;
let repo: string;
beforeAll(async () => {
  o = await startOllie("olliesrv-checkpoints-");
  owner = await connect({ env: o.env });
  // The user's own repository: a commit, a change not committed, ignored and oversized files.
  repo = join(o.work, "project");
  mkdirSync(join(repo, "src"), { recursive: true });
  writeFileSync(join(repo, "src", "a.txt"), "one\ntwo\nthree\n");
  writeFileSync(join(repo, "b.txt"), "to be deleted\n");
  writeFileSync(join(repo, "run.sh"), "#!/bin/sh\necho run\n");
  chmodSync(join(repo, "run.sh"), 0o755);
  writeFileSync(join(repo, "data.bin"), Buffer.from([0, 1, 2, 255, 254, 0, 10]));
  writeFileSync(join(repo, ".gitignore"), "*.log\n");
  const git = (...args: string[]) =>
    execa("git", ["-c", "user.name=t", "-c", "user.email=t@example.org", ...args], { cwd: repo });
  await git("init", "-q");
  await git("add", "-A");
  await git("commit", "-qm", "start");
  writeFileSync(join(repo, "src", "a.txt"), "one\ntwo\nthree\nfour, not committed\n");
  writeFileSync(join(repo, "build.log"), "ignored\n");
  writeFileSync(join(repo, "big.dat"), Buffer.alloc(2 * 1024 * 1024, 7));
  // git status may refresh the index's stat data: once now, so the .git compared later is its own.
  await git("status", "--porcelain");
});
afterAll(async () => {
  owner?.close();
  await o?.stop();
  await o?.remove();
});

/**
 * Every path under `dir` (the user's `.git` aside): its bytes and executable bit (what git keeps of a
 * file's mode), or its link target.
 */
function tree(dir: string, skip: (path: string) => boolean = () => false): Record<string, string> {
  const out: Record<string, string> = {};
  const walk = (at: string) => {
    for (const name of readdirSync(at)) {
      const path = join(at, name);
      const rel = relative(dir, path);
      if (rel === ".git" || skip(rel)) continue;
      const st = lstatSync(path);
      if (st.isDirectory()) walk(path);
      else if (st.isSymbolicLink()) out[rel] = `link ${readlinkSync(path)}`;
      else
        out[rel] =
          `${st.mode & 0o100 ? "x" : "-"} ${createHash("sha256").update(readFileSync(path)).digest("hex")}`;
    }
  };
  walk(dir);
  return out;
}

/** The user's `.git`, every file by its digest. */
const gitDir = () => tree(join(repo, ".git"));
const gitStatus = async () => (await execa("git", ["status", "--porcelain"], { cwd: repo })).stdout;

const call = (name: string, args: Record<string, unknown>) => ({ toolCalls: [{ name, arguments: args }] });

async function turn(session: Session, text: string): Promise<void> {
  const ended = await (await session.agent().prompt(text)).ended;
  expect(ended.outcome.status).toBe("done");
}

describe("checkpoints", () => {
  let session: Session;
  let before: Record<string, string>;
  let after: Record<string, string>;
  const untouchedByRewinds = (path: string) => path === "build.log" || path === "big.dat";

  it("are recorded before a turn's first write; a rewind restores every byte, and the rewind is itself undone", async () => {
    const gitBefore = gitDir();
    const statusBefore = await gitStatus();
    session = await owner.newSession({ agent: "coding", cwd: repo });
    // A turn that only talks records nothing.
    o.mock.enqueue({ text: "Hello." });
    await turn(session, "Say hello");
    before = tree(repo);

    o.mock.enqueue(
      call("file_edit", { path: "src/a.txt", old_string: "two\n", new_string: "2\n" }),
      call("file_write", { path: "src/new/c.txt", content: "made by the turn\n" }),
      call("shell", {
        command:
          "rm b.txt && chmod -x run.sh && printf 'x' >> data.bin && ln -s src/a.txt link && echo more >> build.log && printf y >> big.dat",
      }),
      { text: "Changed." },
    );
    await turn(session, "Change things");
    after = tree(repo);
    expect(after).not.toEqual(before);

    const listed = await o.read(`session/${session.id}/agent/main/checkpoints`);
    expect(listed).toMatch(new RegExp(`^directory ${repo}\\n1\\tturn 2\\t\\S+\\tturn\\t0 files \\+0 -0\\n`));
    // The oversized file is noted, not stored; the ignored one is not there at all.
    expect(listed).toContain("\tnoted\tfile-cap 2097152 bytes\tbig.dat\n");
    expect(listed).not.toContain("build.log");

    await session.agent().ctl("rewind 1");
    expect(tree(repo, untouchedByRewinds)).toEqual(withoutUntouched(before));
    // What no checkpoint holds is as the turn left it.
    expect(readFileSync(join(repo, "build.log"), "utf8")).toBe("ignored\nmore\n");
    expect(lstatSync(join(repo, "big.dat")).size).toBe(2 * 1024 * 1024 + 1);

    const rewound = await o.read(`session/${session.id}/agent/main/checkpoints`);
    expect(rewound).toMatch(/\n2\t-\t\S+\tbefore rewind to 1\t6 files \+\d+ -\d+\n/);
    expect(await session.agent().chatText()).toContain(
      "· rewound to checkpoint 1 (turn 2): 6 files restored",
    );
    await session.agent().ctl("rewind 2");
    expect(tree(repo)).toEqual(after);
    expect((await session.agent().checkpoints()).list).toMatchObject([
      { n: 1, turn: 2, kind: "turn" },
      { n: 2, kind: "before rewind", rewindTo: 1 },
      // The state the rewind to 2 replaced is the one before the turn: b.txt, deleted by the turn, is back.
      {
        n: 3,
        kind: "before rewind",
        rewindTo: 2,
        files: expect.arrayContaining([{ path: "b.txt", change: "added", added: 1, deleted: 0 }]),
      },
    ]);

    // The user's own repository saw none of it.
    expect(gitDir()).toEqual(gitBefore);
    await session.agent().ctl("rewind 1");
    expect(await gitStatus()).toBe(statusBefore);
  });

  it("rewind N chat cuts the conversation back to before that turn; both does both", async () => {
    const history = await session.agent().history();
    await session.agent().ctl("rewind 1 chat");
    const cut = await session.agent().history();
    expect(cut.length).toBeLessThan(history.length);
    expect(cut.map((m) => m.content)).toEqual(history.slice(0, cut.length).map((m) => m.content));
    expect(cut.at(-1)).toMatchObject({ role: "assistant", content: "Hello." });
    // Cut once, the turn is no longer there to cut back to.
    await expect(session.agent().ctl("rewind 1 both")).rejects.toMatchObject({
      reason: expect.stringContaining("the conversation no longer holds turn 2 as it was"),
    });
    await expect(session.agent().ctl("rewind 9")).rejects.toMatchObject({
      reason: "rewind: no checkpoint 9 (the checkpoints file lists them)",
    });
  });

  it("is refused while a turn runs, and ollie undo takes the last turn back", async () => {
    o.mock.enqueue(call("shell", { command: "echo again > again.txt" }), { text: "Again." });
    await turn(session, "Write again");
    o.mock.enqueue(call("shell", { command: "exec tail -f /dev/null" }));
    const held = await session.agent().prompt("Wait");
    await session.agent().waitState({ until: (s) => s.startsWith("calling") });
    const refused = await session
      .agent()
      .ctl("rewind 1")
      .catch((e: unknown) => e);
    expect(refused).toBeInstanceOf(RefusedError);
    expect((refused as RefusedError).reason).toBe("rewind: cannot rewind while a turn runs: stop it first");
    await session.agent().stop();
    await held.ended;

    // Two sessions in one directory share its checkpoints, say so, and wait for each other's turns.
    const other = await owner.newSession({ agent: "coding", cwd: repo });
    expect((await session.agent().checkpoints()).sharedWith).toEqual([other.id]);
    o.mock.enqueue(call("shell", { command: "exec tail -f /dev/null" }));
    const elsewhere = await other.agent().prompt("Wait");
    await other.agent().waitState({ until: (s) => s.startsWith("calling") });
    await expect(session.agent().ctl("undo")).rejects.toMatchObject({
      reason: `undo: cannot undo while ${other.id}.main runs a turn in the same directory: stop it first`,
    });
    await other.agent().stop();
    await elsewhere.ended;
    await other.kill();

    const undo = await execa(process.execPath, [OLLIE, "-a", o.address, "undo", session.id], {
      env: o.env,
      extendEnv: false,
      reject: false,
    });
    expect(undo.stderr).toBe("");
    expect(undo.exitCode).toBe(0);
    expect(undo.stdout).toMatch(/^rewound to checkpoint 5 \(turn 3\): 1 file restored/);
    expect(tree(repo)).not.toHaveProperty("again.txt");
  });
});

function withoutUntouched(t: Record<string, string>): Record<string, string> {
  const { "build.log": _log, "big.dat": _big, ...rest } = t;
  return rest;
}
