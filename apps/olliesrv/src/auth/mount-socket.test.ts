import { chmodSync, mkdtempSync, rmSync, statSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { fileURLToPath } from "node:url";
import { NinepClient, NinepRemoteError, NinepServer, Ramfs } from "@ollie/ninep";
import { execa } from "execa";
import { afterAll, describe, expect, it } from "vitest";
import { listenMountSocket, MountRefusal } from "./mount-socket.js";

const dir = mkdtempSync(join(tmpdir(), "mount-socket-"));
afterAll(() => rmSync(dir, { recursive: true, force: true }));

const me = process.getuid!();
const NINEP = fileURLToPath(new URL("../../node_modules/@ollie/ninep/bin/ninep.js", import.meta.url));

/** A ramfs served on a mount socket by a daemon that runs as `uid`; returns what it audited and logged. */
async function mountSocket(name: string, uid: number) {
  const audited: string[] = [];
  const errors: Error[] = [];
  const server = new NinepServer(new Ramfs(), { onError: (e) => errors.push(e) });
  const path = join(dir, name);
  await listenMountSocket(server, path, { owner: "glenda", uid, audit: (line) => audited.push(line) });
  return { server, path, address: `unix!${path}`, audited, errors };
}

describe("the mount socket", () => {
  it("serves the daemon's own user as the owner, without a key, from a socket file only it can open", async () => {
    const m = await mountSocket("own.mount", me);
    expect(statSync(m.path).mode & 0o777).toBe(0o600);
    const client = await NinepClient.dial(m.address, { dialect: "9P2000.L" });
    const fsys = await client.attach({ uname: "someone else", nUname: me });
    await fsys.create("note").then((f) => f.close());
    // Rgetattr numbers the owner's files as the daemon's uid.
    expect((await fsys.stat("note")).uid).toBe(String(me));
    client.close();
    await m.server.close();
  });

  it("refuses an attach for a uid that is neither the owner's nor root's, as EACCES (13)", async () => {
    const m = await mountSocket("uids.mount", me);
    const client = await NinepClient.dial(m.address, { dialect: "9P2000.L" });
    const stranger = me === 4242 ? 4243 : 4242;
    const refused = await client.attach({ uname: "", nUname: stranger }).catch((e: unknown) => e);
    expect(refused).toBeInstanceOf(NinepRemoteError);
    expect((refused as NinepRemoteError).errno).toBe(13);
    expect(m.audited).toEqual([
      expect.stringMatching(
        new RegExp(
          `^refused an attach for uid ${stranger} on the mount socket from pid ${process.pid} \\(uid ${me}\\)$`,
        ),
      ),
    ]);
    await expect(client.attach({ uname: "", nUname: 0 })).resolves.toBeDefined();
    client.close();
    await m.server.close();
  });

  it("closes the connection of another user unanswered, and audits it", async () => {
    // Root is served whoever runs the daemon (it can read the owner's key anyway), so as root the stranger
    // is a child process that gives its privileges up; otherwise the daemon is made to be someone else.
    const stranger = me === 0 ? 65534 : me;
    const m = await mountSocket("other.mount", me === 0 ? me : me + 1);
    // Only a wrong mode would let another user reach the socket: the identity is what is tested here.
    chmodSync(dir, 0o755);
    chmodSync(m.path, 0o666);
    const asStranger = me === 0 ? ["setpriv", "--reuid=65534", "--regid=65534", "--clear-groups"] : [];
    const tried = await execa(
      asStranger[0] ?? process.execPath,
      [...asStranger.slice(1), ...(me === 0 ? [process.execPath] : []), NINEP, "-a", m.address, "ls", "/"],
      { reject: false },
    );
    expect(tried.exitCode).toBe(1);
    expect(tried.stdout).toBe("");
    expect(m.audited).toEqual([
      expect.stringMatching(
        new RegExp(`^refused the mount socket to pid \\d+ \\(uid ${stranger}\\): not the owner's user$`),
      ),
    ]);
    expect(m.errors.map((e) => e.cause)).toEqual([expect.any(MountRefusal)]);
    await m.server.close();
  });
});
