import { readFile } from "node:fs/promises";
import { connect, createServer } from "node:net";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { type Harness, serve } from "../../__fixtures__/harness.js";
import { NinepClient } from "../../client/client.js";
import { NinepRemoteError } from "../../client/errors.js";
import type { Fsys } from "../../client/fsys.js";
import { QT } from "../../codec/constants.js";
import { Errno } from "../../codec/linux/constants.js";
import type { Qid } from "../../codec/types.js";
import type { Fid, FileServer } from "../file-server.js";
import { NinepError } from "../ninep-error.js";
import { errnoOf } from "./errno.js";

/** A connection refused by the system: a port that was listening and is closed again. */
async function refusedConnection(): Promise<Error> {
  const server = createServer();
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
  const { port } = server.address() as { port: number };
  await new Promise((resolve) => server.close(resolve));
  return new Promise((resolve) => connect(port, "127.0.0.1").once("error", resolve));
}

/** What each file's read fails with: errors as FileServers meet them, made for real. */
const failures: Record<string, () => Promise<unknown>> = {
  // A backend's typed error around the system's refusal, wrapped again as the tree reports it.
  refused: async () => {
    const refused = await refusedConnection();
    const backend = new Error("backend 'local' did not answer", { cause: refused });
    throw new NinepError(`models: ${backend.message}`, { cause: backend });
  },
  missing: () => readFile("/nonexistent/ninep-errno-test"),
  timeout: async () => {
    const signal = AbortSignal.timeout(1);
    await new Promise((resolve) => signal.addEventListener("abort", resolve, { once: true }));
    throw signal.reason;
  },
  busy: async () => {
    throw new NinepError("the file is being rewritten", {
      errno: Errno.EBUSY,
      cause: await refusedConnection(),
    });
  },
  // A third-party FileServer's plain Errors: conventional last words stand for their errno; others are EIO
  // (the word "refused" in a message does not make it EACCES).
  conventional: async () => {
    throw new Error("'x' file does not exist");
  },
  words: async () => {
    throw new Error("the key was refused by the upstream: not allowed");
  },
};

const ROOT: Qid = { type: QT.DIR, version: 0, path: 0n };

class FailingFs implements FileServer<string> {
  attach({ fid }: { fid: Fid<string> }): Qid {
    fid.aux = "";
    return ROOT;
  }
  walk({ newFid, names }: { newFid: Fid<string>; names: string[] }): Qid[] {
    const name = names[0]!;
    if (names.length !== 1 || !(name in failures))
      throw new NinepError("file not found", { errno: Errno.ENOENT });
    newFid.aux = name;
    return [{ type: QT.FILE, version: 0, path: BigInt(Object.keys(failures).indexOf(name) + 1) }];
  }
  open(): undefined {
    return undefined;
  }
  async read({ fid }: { fid: Fid<string> }): Promise<Uint8Array> {
    await failures[fid.aux]!();
    throw new Error(`${fid.aux} did not fail`);
  }
  readdir() {
    return [];
  }
  stat({ fid }: { fid: Fid<string> }) {
    return {
      type: 0,
      dev: 0,
      qid: ROOT,
      mode: 0o444,
      atime: 0,
      mtime: 0,
      length: 0n,
      name: fid.aux,
      uid: "glenda",
      gid: "glenda",
      muid: "glenda",
    };
  }
}

let harness: Harness<string>;
let linux: Fsys;
let plain: Fsys;
beforeAll(async () => {
  harness = await serve(new FailingFs());
  linux = await (await NinepClient.dial(harness.address, { dialect: "9P2000.L" })).attach({
    uname: "glenda",
  });
  plain = await (await harness.client()).attach({ uname: "glenda" });
});
afterAll(async () => {
  linux.client.close();
  await harness.close();
});

const failureOf = (fsys: Fsys, name: string) =>
  fsys.readFile(name).then(
    () => expect.unreachable(`${name} was read`),
    (error: unknown) => error as NinepRemoteError,
  );

describe("the errno a 9P2000.L client is told", () => {
  it.each([
    ["refused", Errno.ECONNREFUSED, "Connection refused"],
    ["missing", Errno.ENOENT, "No such file or directory"],
    ["timeout", Errno.ETIMEDOUT, "Connection timed out"],
    ["busy", Errno.EBUSY, "Device or resource busy"],
    ["conventional", Errno.ENOENT, "No such file or directory"],
    ["words", Errno.EIO, "Input/output error"],
  ])("for a read that fails as '%s' is %i (%s)", async (name, errno, words) => {
    const error = await failureOf(linux, name);
    expect(error).toBeInstanceOf(NinepRemoteError);
    expect(error).toMatchObject({ errno, ename: words });
  });

  it("is found along causes, while 9P2000 clients read the words", async () => {
    const error = await failureOf(plain, "refused");
    expect(error.ename).toBe("models: backend 'local' did not answer");
    expect(error.errno).toBeUndefined();
  });
});

describe("errnoOf", () => {
  it("takes an error's own errno first, then a code along its causes, then the caller's default", async () => {
    const refused = await refusedConnection();
    expect(errnoOf(new NinepError("x", { errno: Errno.EXDEV, cause: refused }))).toBe(Errno.EXDEV);
    expect(errnoOf(new Error("a", { cause: new Error("b", { cause: refused }) }))).toBe(Errno.ECONNREFUSED);
    expect(errnoOf(new Error("connection refused"))).toBe(Errno.EIO);
    expect(errnoOf(new Error("cannot parse that"), Errno.EINVAL)).toBe(Errno.EINVAL);
    expect(errnoOf(new DOMException("flushed", "AbortError"))).toBe(Errno.EINTR);
    // A code that is no Linux errno, or a name of Object's own, says nothing.
    expect(errnoOf(Object.assign(new Error("lookup"), { code: "ENOTFOUND" }))).toBe(Errno.EIO);
    expect(errnoOf(Object.assign(new Error("odd"), { code: "toString" }))).toBe(Errno.EIO);
  });
});
