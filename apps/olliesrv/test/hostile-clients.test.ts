import { createHmac } from "node:crypto";
import { mkdirSync, readFileSync, writeFileSync } from "node:fs";
import { connect, type Socket } from "node:net";
import { join } from "node:path";
import {
  decodeMessage,
  encodeMessage,
  FrameReader,
  hmacAuthenticator,
  type Message,
  NinepClient,
  OREAD,
  type TMessage,
} from "@ollie/ninep";
import { afterAll, beforeAll, describe, expect, it, vi } from "vitest";
import { type Ollie, startOllie, WAIT } from "./harness.js";

let o: Ollie;
beforeAll(async () => {
  o = await startOllie("olliesrv-hostile-", { args: ["--attach-deadline", "2"] });
});
afterAll(async () => {
  await o.stop();
  await o.remove();
});

const BLOCKING = ["statewait", "turnwait", "tail", "fifo.out"];

describe("readers blocked on a session that is killed", () => {
  it("are woken with an error that says so", async () => {
    const id = await o.create(`agent=coding cwd=${o.work}`);
    const agent = `session/${id}/agent/main`;
    const outcomes: string[] = [];
    const reads = await Promise.all(
      BLOCKING.map(async (name) => {
        const f = await o.fsys.open(`${agent}/${name}`, OREAD);
        // Wrapped, so that opening all four does not wait for the reads.
        return {
          done: f.read(0, 4096).then(
            (data) => outcomes.push(`${name}: read ${JSON.stringify(data.toString())}`),
            (error: Error) => outcomes.push(`${name}: ${error.message}`),
          ),
        };
      }),
    );
    // A window for a negative assertion: no read returns before the kill.
    await new Promise((r) => setTimeout(r, 200));
    expect(outcomes, "every reader is blocked before the kill").toEqual([]);
    await o.fsys.writeFile(`session/${id}/ctl`, "kill\n");
    await Promise.all(reads.map((r) => r.done));
    expect(outcomes.sort()).toEqual(
      BLOCKING.map((name) => `${name}: ${agent}/${name}: session ${id} was killed`).sort(),
    );
  });
});

describe("a prompt", () => {
  it("longer than 1 MiB is refused, saying the limit, and nothing is submitted", async () => {
    const id = await o.create(`agent=coding cwd=${o.work}`);
    const agent = `session/${id}/agent/main`;
    await expect(o.fsys.writeFile(`${agent}/prompt`, "x".repeat(1024 * 1024 + 1))).rejects.toThrow(
      "a prompt is at most 1 MiB",
    );
    expect(await o.read(`${agent}/prompt.prev`)).toBe("");
    expect(await o.read(`${agent}/state`)).toBe("idle\n");
  });
});

describe("a session spec", () => {
  it("naming an unknown backend, a missing profile or a broken one is refused at once, saying why", async () => {
    const agents = join(o.root, "config", "ollie", "agents");
    mkdirSync(agents, { recursive: true });
    writeFileSync(join(agents, "broken.json"), '{ "model": 42 }\n');
    writeFileSync(
      join(agents, "hooked.json"),
      '{ "hooks": { "preTool": "$OLLIE/hooks/missing.sh --strict" } }\n',
    );
    await expect(o.create(`agent=coding cwd=${o.work} backend=nosuch`)).rejects.toThrow(
      "no backend profile 'nosuch' (profiles: mock, other, down)",
    );
    await expect(o.create(`agent=nosuch cwd=${o.work}`)).rejects.toThrow("no agent profile 'nosuch'");
    await expect(o.create(`agent=broken cwd=${o.work}`)).rejects.toThrow(/broken\.json/);
    await expect(o.create(`agent=hooked cwd=${o.work}`)).rejects.toThrow(
      /hooked\.json: hooks\.preTool: \S+\/config\/ollie\/hooks\/missing\.sh is not an executable file/,
    );
    await expect(o.create("agent=../../etc/x")).rejects.toThrow("'../../etc/x' is not a profile name");
    await expect(o.create(`agent=coding cwd=${o.work} model=nosuch`)).rejects.toThrow(
      "backend 'mock' has no model 'nosuch' (it lists mock-model, other-model, big-model)",
    );
    const id = await o.create(`agent=coding cwd=${o.work} model=big-model`);
    await expect(o.fsys.writeFile(`session/${id}/agent/main/ctl`, "model nosuch\n")).rejects.toThrow(
      "has no model 'nosuch'",
    );
    await o.fsys.writeFile(`session/${id}/agent/main/ctl`, "model other-model\n");
    expect(await o.read("session/idx")).not.toContain("nosuch");
  });
});

/** A raw connection to the daemon that has said Tversion and nothing else; resolves once it is closed. */
async function unattached(path: string, then?: (s: Socket) => void): Promise<{ closed: Promise<void> }> {
  const socket = connect(path);
  await new Promise<void>((resolve) => socket.once("connect", () => resolve()));
  socket.on("error", () => {});
  socket.resume();
  socket.write(encodeMessage({ type: "Tversion", tag: 0xffff, msize: 1 << 20, version: "9P2000" }));
  then?.(socket);
  return { closed: new Promise((resolve) => socket.once("close", () => resolve())) };
}

const rssKiB = (pid: number) =>
  Number(/VmRSS:\s+(\d+)/.exec(readFileSync(`/proc/${pid}/status`, "utf8"))![1]);

describe("clients that never attach", () => {
  it("are closed at the attach deadline", async () => {
    const { closed } = await unattached(o.address.replace(/^unix!/, ""));
    await closed;
    expect(o.log()).toContain(
      `WARN  olliesrv[9p]: uid ${process.getuid!()}: no attach within 2 s; connection closed`,
    );
  });

  it("cannot make the daemon hold their half-sent messages: 400 of 1 MiB are refused as they begin", async () => {
    const before = rssKiB(o.pid);
    const header = Buffer.alloc(7);
    header.writeUInt32LE(1 << 20, 0);
    const conns = await Promise.all(
      Array.from({ length: 400 }, () =>
        unattached(o.address.replace(/^unix!/, ""), (s) =>
          s.write(Buffer.concat([header, Buffer.alloc(60_000)])),
        ),
      ),
    );
    await Promise.all(conns.map((c) => c.closed));
    const grown = rssKiB(o.pid) - before;
    // 400 × 1 MiB would be 400 MiB; what the daemon took for them is a few socket buffers' worth.
    expect(grown).toBeLessThan(64 * 1024);
  });

  it("leave at most a few audit lines per source however many times they are refused", async () => {
    const client = await NinepClient.dial(o.address);
    const attempts = Array.from({ length: 300 }, () =>
      client
        .attach({ uname: o.owner, authenticator: hmacAuthenticator("not the key") })
        .catch(() => undefined),
    );
    await Promise.all(attempts);
    client.close();
    const lines = o
      .log()
      .split("\n")
      .filter((l) => l.includes(`WARN  olliesrv[audit]: refused attach as ${o.owner}`));
    expect(lines.length).toBeGreaterThan(0);
    expect(lines.length).toBeLessThanOrEqual(20);
  });
});

describe("a pipelining client", () => {
  it("gets every reply when it writes 5,000 requests before reading any (as 9fans/go's client does)", async () => {
    const socket = connect(o.address.replace(/^unix!/, ""));
    await new Promise<void>((resolve) => socket.once("connect", () => resolve()));
    const reader = new FrameReader(1 << 24);
    const replies: Message[] = [];
    socket.on("data", (chunk: Buffer) => {
      reader.push(chunk);
      for (let f = reader.next(); f; f = reader.next()) replies.push(decodeMessage(f));
    });
    const send = (m: TMessage) => socket.write(encodeMessage(m));
    const reply = (tag: number) =>
      vi.waitFor(() => {
        const found = replies.find((r) => "tag" in r && r.tag === tag);
        expect(found, `the reply to tag ${tag}`).toBeDefined();
        return found!;
      }, WAIT);
    // Attach as the owner, proving the key over the afid.
    send({ type: "Tversion", tag: 0xffff, msize: 8192 + 24, version: "9P2000" });
    send({ type: "Tauth", tag: 1, afid: 1, uname: o.owner, aname: "" });
    send({ type: "Tread", tag: 2, fid: 1, offset: 0n, count: 256 });
    const challenge = (await reply(2)) as Extract<Message, { type: "Rread" }>;
    const nonce = challenge.data.toString().trim().split(" ")[1]!;

    const proof = createHmac("sha256", o.ownerKey()).update(`${nonce}\n${o.owner}\n`).digest("hex");
    send({ type: "Twrite", tag: 3, fid: 1, offset: 0n, data: Buffer.from(proof) });
    // Requests run concurrently: the attach must wait for the proof to be taken.
    await reply(3);
    send({ type: "Tattach", tag: 4, fid: 0, afid: 1, uname: o.owner, aname: "" });
    send({ type: "Twalk", tag: 5, fid: 0, newfid: 2, wnames: ["stats"] });
    send({ type: "Topen", tag: 6, fid: 2, mode: OREAD });
    expect(
      [await reply(3), await reply(4), await reply(6)].map((r) => (r.type === "Rerror" ? r.ename : r.type)),
    ).toEqual(["Rwrite", "Rattach", "Ropen"]);
    replies.length = 0;
    socket.pause();
    for (let i = 0; i < 4000; i++) send({ type: "Tread", tag: 10 + i, fid: 2, offset: 0n, count: 4096 });
    const long = Array.from({ length: 8 }, (_, i) => `${i}`.repeat(250));
    for (let i = 0; i < 1000; i++) send({ type: "Twalk", tag: 5000 + i, fid: 0, newfid: 3, wnames: long });
    // Every request leaves the client before it reads a reply; were the server to stop reading, this would
    // wait past the test's timeout.
    await new Promise<void>((resolve) => socket.once("drain", () => resolve()));
    socket.resume();
    await vi.waitFor(() => expect(replies).toHaveLength(5000), { timeout: 20_000, interval: 10 });
    expect(replies.filter((r) => r.type === "Rread")).toHaveLength(4000);
    socket.destroy();
  });
});
