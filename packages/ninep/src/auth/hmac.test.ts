import { afterEach, describe, expect, it } from "vitest";
import { eventually, type Harness, serve } from "../__fixtures__/harness.js";
import { Ramfs } from "../ramfs/ramfs.js";
import { hmacAuth, hmacAuthenticator } from "./hmac.js";
import type { AuthRefusal } from "./server-auth.js";

const keys: Record<string, string> = { glenda: "glenda's secret", bob: "bob's secret" };
const auth = hmacAuth({ keyFor: (uname) => (keys[uname] ? Buffer.from(keys[uname]) : undefined) });

let harness: Harness<unknown> | undefined;
afterEach(async () => {
  await harness?.close();
  harness = undefined;
});

describe("hmac authentication", () => {
  it("lets a client that knows the uname's secret attach", async () => {
    harness = (await serve(new Ramfs(), { auth })) as Harness<unknown>;
    const client = await harness.client();
    const fsys = await client.attach({ uname: "glenda", authenticator: hmacAuthenticator(keys.glenda!) });
    await fsys.writeFile("x", "proven");
    expect((await fsys.readFile("x")).toString()).toBe("proven");
    await eventually(() => harness!.server.stats().fids === 1);
  });

  it("refuses a client that claims a uname without its secret", async () => {
    harness = (await serve(new Ramfs(), { auth })) as Harness<unknown>;
    const client = await harness.client();
    await expect(
      client.attach({ uname: "glenda", authenticator: hmacAuthenticator(keys.bob!) }),
    ).rejects.toThrow("authentication failed");
    await expect(
      client.attach({ uname: "mallory", authenticator: hmacAuthenticator("guess") }),
    ).rejects.toThrow("authentication failed");
  });

  it("names whose key a refused client holds when the server knows it, and only then", async () => {
    const naming = hmacAuth({
      keyFor: (uname) => (keys[uname] ? Buffer.from(keys[uname]) : undefined),
      knownUnames: () => Object.keys(keys),
    });
    harness = (await serve(new Ramfs(), { auth: naming })) as Harness<unknown>;
    const client = await harness.client();
    await expect(
      client.attach({ uname: "glenda", authenticator: hmacAuthenticator(keys.bob!) }),
    ).rejects.toThrow(/^authentication failed: the key proves "bob", but the attach claimed "glenda"$/);
    await expect(
      client.attach({ uname: "glenda", authenticator: hmacAuthenticator("guess") }),
    ).rejects.toThrow(/^authentication failed$/);
  });

  it("refuses an attach without authentication, with a clear error", async () => {
    harness = (await serve(new Ramfs(), { auth })) as Harness<unknown>;
    const client = await harness.client();
    await expect(client.attach({ uname: "glenda" })).rejects.toThrow("authentication required");
  });

  it("refuses an afid proven for one uname when attaching as another", async () => {
    harness = (await serve(new Ramfs(), { auth })) as Harness<unknown>;
    const client = await harness.client();
    const afid = 77;
    await client.rpc({ type: "Tauth", afid, uname: "bob", aname: "" });
    await hmacAuthenticator(keys.bob!)(
      {
        read: async (n) => Buffer.from((await client.read(afid, 0n, n)).data),
        write: (d) => client.write(afid, 0n, d),
      },
      { uname: "bob", aname: "" },
    );
    await expect(client.rpc({ type: "Tattach", fid: 1, afid, uname: "glenda", aname: "" })).rejects.toThrow(
      "afid was made for another uname or aname",
    );
    await expect(
      client.rpc({ type: "Tattach", fid: 1, afid, uname: "bob", aname: "" }),
    ).resolves.toMatchObject({
      type: "Rattach",
    });
  });

  it("tells the server of every refusal, with who asked and why", async () => {
    const refusals: AuthRefusal[] = [];
    harness = (await serve(new Ramfs(), {
      auth: { ...auth, refused: (r: AuthRefusal) => refusals.push(r) },
    })) as Harness<unknown>;
    const client = await harness.client();
    await expect(client.attach({ uname: "glenda" })).rejects.toThrow();
    await expect(
      client.attach({ uname: "bob", authenticator: hmacAuthenticator("guess") }),
    ).rejects.toThrow();
    await client.attach({ uname: "glenda", authenticator: hmacAuthenticator(keys.glenda!) });
    expect(refusals).toEqual([
      { uname: "glenda", aname: "", reason: "authentication required", peer: expect.any(String) },
      { uname: "bob", aname: "", reason: "authentication failed", peer: expect.any(String) },
    ]);
  });

  it("spends an afid on one wrong answer", async () => {
    harness = (await serve(new Ramfs(), { auth })) as Harness<unknown>;
    const client = await harness.client();
    await client.rpc({ type: "Tauth", afid: 5, uname: "glenda", aname: "" });
    await expect(client.write(5, 0n, Buffer.from("00"))).rejects.toThrow("authentication failed");
    await expect(client.write(5, 0n, Buffer.from("00"))).rejects.toThrow("already attempted");
  });
});
