import { execFileSync } from "node:child_process";
import { statSync, writeFileSync } from "node:fs";
import { connect } from "node:net";
import { join } from "node:path";
import { fileURLToPath } from "node:url";
import { runTranscript } from "@ollie/ninep/testing";
import { execa } from "execa";
import { afterAll, beforeAll, describe, expect, it, vi } from "vitest";
import { type Ollie, prompt, startOllie, WAIT } from "./harness.js";

// The owner's mount socket as Linux's own 9P2000.L clients meet it: diod's diodls and diodcat (Debian's
// `diod` package), and the ninep command with -L, none of them proving a key.
const has = (command: string) => {
  try {
    execFileSync("sh", ["-c", `command -v ${command}`], { stdio: "ignore" });
    return true;
  } catch {
    return false;
  }
};
const DIOD = has("diodls") && has("diodcat");
if (!DIOD)
  console.warn("diod's clients (diodls, diodcat) are not installed: the tests with them are skipped");

const NINEP = fileURLToPath(new URL("../../../packages/ninep/bin/ninep.js", import.meta.url));

let o: Ollie;
let mount: string;
beforeAll(async () => {
  o = await startOllie("olliesrv-mount-", {
    // The mount command line is a start-up hint: at debug.
    args: ["--log-level", "debug"],
    mock: { models: [{ id: "mock-model", contextLength: 32_768 }] },
  });
  mount = join(o.root, "ns", "ollie.mount");
});
afterAll(async () => {
  await o?.stop();
  await o?.remove();
});

const diod = (command: "diodls" | "diodcat", args: string[]) =>
  execa(command, ["-s", mount, "-a", "", ...args], { reject: false });
const ninepL = (args: string[], input?: string) =>
  execa(process.execPath, [NINEP, "-L", "-a", `unix!${mount}`, ...args], { reject: false, input });

describe("the owner's mount socket", () => {
  it("is beside the daemon's socket, owner-only, and said in the log (debug) with the mount command line", async () => {
    expect(statSync(mount).mode & 0o777).toBe(0o600);
    await o.logged(
      `serving the owner's mount socket on ${mount}: mount -t 9p -o trans=unix,version=9p2000.L,access=${process.getuid!()} ${mount} DIR`,
    );
  });

  it("answers the kernel's mount sequence: Tauth with ENOENT, an attach by uid, getattr, walk, lopen, clunk", async () => {
    const me = process.getuid!();
    const socket = connect(mount);
    await new Promise((resolve) => socket.once("connect", resolve));
    await runTranscript(
      socket,
      `
Tversion tag NOTAG msize 131096 version '9P2000.L'
Rversion tag NOTAG msize 131096 version '9P2000.L'
Tauth tag 1 afid 0 uname '' aname '' n_uname ${me}
Rlerror tag 1 ecode 2
Tattach tag 1 fid 0 afid NOFID uname '' aname '' n_uname ${me}
Rattach tag 1 qid *
Tgetattr tag 1 fid 0 requestMask 0x17ff
Rgetattr tag 1 valid 0x17ff qid * mode 040555 uid ${me} gid * nlink * rdev 0 size 0 blksize * blocks 0 atimeSec * atimeNsec 0 mtimeSec * mtimeNsec 0 ctimeSec * ctimeNsec 0 btimeSec 0 btimeNsec 0 gen 0 dataVersion 0
Twalk tag 1 fid 0 newfid 1 wname [session]
Rwalk tag 1 wqid [*]
Tlopen tag 1 fid 1 flags 0304000
Rlopen tag 1 qid * iounit *
Tclunk tag 1 fid 1
Rclunk tag 1
Tattach tag 2 fid 2 afid NOFID uname '' aname '' n_uname ${me === 4242 ? 4243 : 4242}
Rlerror tag 2 ecode 13
`,
    );
    socket.destroy();
  });

  it("makes a session for ninep -L without a key, as the owner", async () => {
    const made = await ninepL(["rdwr", "session/new"], `cwd=${o.work}\n`);
    expect(made.stderr).toBe("");
    const id = made.stdout.trim();
    expect(id).toMatch(/^[\w-]+$/);
    expect((await o.fsys.stat(`session/${id}`)).uid).toBe(o.owner);
  });
});

describe.skipIf(!DIOD)("diod's clients on the mount socket", () => {
  let id: string;
  let agent: string;
  beforeAll(async () => {
    id = await o.create(`cwd=${o.work}`);
    agent = `session/${id}/agent/main`;
    o.mock.enqueue({ text: "Hello from the mock." });
    await prompt(o, agent, "say hello");
  });

  it("lists session/ and reads an agent's state, chat and models", async () => {
    const sessions = await diod("diodls", ["/session"]);
    expect(sessions.stderr).toBe("");
    expect(sessions.stdout.split("\n")).toContain(id);
    const state = await diod("diodcat", [`/${agent}/state`]);
    expect(state).toMatchObject({ exitCode: 0, stdout: "idle" });
    const chat = await diod("diodcat", [`/${agent}/chat`]);
    expect(chat.stdout).toContain("Hello from the mock.");
    const models = await diod("diodcat", ["/models"]);
    expect(models.stdout).toContain("mock-model");
  });

  it("tells a 9P2000.L client what a refused request is: a bad command, a missing skill, no such process", async () => {
    const ctl = `${agent}/ctl`;
    const refusal = async (line: string) => (await ninepL(["write", ctl], `${line}\n`)).stderr;
    expect(await refusal("frobnicate")).toBe(`ninep: ${ctl}: Invalid argument`);
    expect(await refusal("skill load nosuch")).toBe(`ninep: ${ctl}: No such file or directory`);
    expect(await refusal("proc kill 999999")).toBe(`ninep: ${ctl}: No such process`);
    expect((await diod("diodcat", ["/session/nosuch/agent"])).stderr).toBe(
      "diodcat: open /session/nosuch/agent: No such file or directory",
    );
  });

  it("blocks diodcat on statewait until another client prompts", async () => {
    const waiting = execa("diodcat", ["-s", mount, "-a", "", `/${agent}/statewait`], { reject: false });
    let said = "";
    waiting.stdout!.on("data", (chunk: Buffer) => {
      said += chunk.toString();
    });
    await new Promise((resolve) => setTimeout(resolve, 300));
    expect(said).toBe("");
    o.mock.enqueue({ text: "Woken." });
    const prompted = await ninepL(["write", `${agent}/prompt`], "wake up\n");
    expect(prompted).toMatchObject({ exitCode: 0, stderr: "" });
    await vi.waitFor(() => expect(said).toMatch(/^(thinking|idle)/), WAIT);
    waiting.kill("SIGTERM");
    await waiting;
    await vi.waitFor(async () => expect((await o.read(`${agent}/state`)).trim()).toBe("idle"), WAIT);
    expect(await o.read(`${agent}/chat`)).toContain("Woken.");
  });
});

describe.skipIf(!DIOD)("the mount socket when no backend answers", () => {
  let down: Ollie;
  let downMount: string;
  beforeAll(async () => {
    down = await startOllie("olliesrv-mount-down-", {
      // Every profile points where nothing listens: the models list fails with a refused connection.
      setup: (config) =>
        writeFileSync(
          join(config, "backends.conf"),
          "default = down\n[down]\ntype = ollama\nurl = http://127.0.0.1:1\nmodel = nothing\n",
        ),
    });
    downMount = join(down.root, "ns", "ollie.mount");
  });
  afterAll(async () => {
    await down?.stop();
    await down?.remove();
  });

  it("tells diodcat of /models that the connection was refused, not that permission was denied", async () => {
    const models = await execa("diodcat", ["-s", downMount, "-a", "", "/models"], { reject: false });
    expect(models.exitCode).not.toBe(0);
    // The list is read when the file is opened (a snapshot), so the open is what fails.
    expect(models.stderr).toBe("diodcat: open /models: Connection refused");
    const linux = await execa(process.execPath, [NINEP, "-L", "-a", `unix!${downMount}`, "read", "models"], {
      reject: false,
    });
    expect(linux).toMatchObject({ exitCode: 1, stderr: "ninep: models: Connection refused" });
    // A 9P2000 client reads the whole story.
    const words = await down.fsys.readFile("models").catch((error: unknown) => (error as Error).message);
    expect(words).toMatch(
      /^models: backend 'down' has not listed its models: down: request to http:\/\/127\.0\.0\.1:1\/api\/tags failed: connect ECONNREFUSED 127\.0\.0\.1:1; olliesrv asks again in \d+ s$/,
    );
  });
});
