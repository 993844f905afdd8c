import { mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { hmacAuth, NinepServer, Ramfs } from "@ollie/ninep";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { AttachRefusedError, DialError } from "../errors.js";
import { connect } from "./connect.js";

const dir = mkdtempSync(join(tmpdir(), "ollie-client-connect-"));
const address = `unix!${join(dir, "srv")}`;
const keys = new Map([["glenda", Buffer.from("glenda's key")]]);
let server: NinepServer<unknown>;
beforeAll(async () => {
  // A 9P server that demands olliesrv's proof: enough to see a client attach, or be refused.
  server = new NinepServer(new Ramfs(), { auth: hmacAuth({ keyFor: (uname) => keys.get(uname) }) });
  await server.listen(address);
});
afterAll(async () => {
  await server.close();
  rmSync(dir, { recursive: true, force: true });
});

describe("connect", () => {
  it("dials and attaches, proving the uname with its key", async () => {
    const client = await connect({ address, uname: "glenda", key: "glenda's key" });
    expect(client).toMatchObject({ address, uname: "glenda" });
    client.close();
    await client.closed;
  });

  it("is an agent's client inside its tool, from OLLIE_UNAME, OLLIE_KEY and OLLIE_ADDRESS", async () => {
    const client = await connect({
      env: { HOME: dir, OLLIE_UNAME: "glenda", OLLIE_KEY: "glenda's key", OLLIE_ADDRESS: address },
    });
    expect(client.uname).toBe("glenda");
    client.close();
  });

  it("carries the server's reason when it refuses the attach", async () => {
    const refused = await connect({ address, uname: "glenda", key: "a guess" }).catch((e: unknown) => e);
    expect(refused).toBeInstanceOf(AttachRefusedError);
    expect(refused).toMatchObject({ address, uname: "glenda", reason: "authentication failed" });
  });

  it("tells a dead address from a wrong one", async () => {
    const nothing = `unix!${join(dir, "nothing")}`;
    await expect(connect({ address: nothing, key: "k" })).rejects.toMatchObject({
      name: "DialError",
      code: "ENOENT",
      notRunning: true,
    });
    // A file that is no socket, or a socket whose daemon died: nothing listens there.
    const plain = join(dir, "plain");
    writeFileSync(plain, "");
    const refused = await connect({ address: `unix!${plain}`, key: "k" }).catch((e: unknown) => e);
    expect(refused).toBeInstanceOf(DialError);
    expect(refused).toMatchObject({ code: "ECONNREFUSED", notRunning: true });
    expect((refused as Error).message).toMatch(
      new RegExp(`^cannot reach olliesrv at unix!${plain} \\(.*\\); is it running\\?$`),
    );
    await expect(connect({ address: "unix!/dev/null/ollie", key: "k" })).rejects.toMatchObject({
      code: "ENOTDIR",
      notRunning: false,
    });
    await expect(connect({ address: "tcp!nowhere", key: "k" })).rejects.toMatchObject({
      name: "DialError",
      code: undefined,
      notRunning: false,
    });
  });

  it("gives up when its signal aborts, with the signal's reason", async () => {
    const reason = new Error("no longer wanted");
    await expect(connect({ address, key: "k", signal: AbortSignal.abort(reason) })).rejects.toBe(reason);
  });
});
