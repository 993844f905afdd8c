import { randomBytes } from "node:crypto";
import { hmacAuth, hmacAuthenticator } from "@ollie/ninep";
import { describe, expect, it } from "vitest";
import { servedPerTest } from "../__fixtures__/serve-tree.js";
import { ctl } from "../patterns/ctl.js";
import { dir, file } from "../spec/node-spec.js";

const serve = servedPerTest();

function tree(done: string[]) {
  return dir("/", [file("ctl", ctl({ stop: (_args, c) => void done.push(`stop by ${c.uname}`) }))]);
}

// What the README's "Who a uname is" says: permission checks trust the attach's uname unless the server
// makes the client prove it.
describe("the uname a client attaches as", () => {
  it("is only a claim without authentication: claiming the owner's passes the owner's checks", async () => {
    const done: string[] = [];
    const served = await serve(tree(done));
    await expect((await served.attach("mallory")).writeFile("ctl", "stop\n")).rejects.toThrow(
      "permission denied",
    );
    // The same client, saying it is the owner: nothing asks it to prove so.
    await (await served.attach("owner")).writeFile("ctl", "stop\n");
    expect(done).toEqual(["stop by owner"]);
  });

  it("must be proven when the server authenticates with hmacAuth", async () => {
    const done: string[] = [];
    const keys = new Map([
      ["owner", randomBytes(32)],
      ["mallory", randomBytes(32)],
    ]);
    const auth = hmacAuth({ keyFor: (uname) => keys.get(uname) });
    const served = await serve(tree(done), {}, { auth });
    await expect(served.attach("owner")).rejects.toThrow("authentication required");
    await expect(
      served.attach("owner", { authenticator: hmacAuthenticator(keys.get("mallory")!) }),
    ).rejects.toThrow("authentication failed");
    const owner = await served.attach("owner", { authenticator: hmacAuthenticator(keys.get("owner")!) });
    await owner.writeFile("ctl", "stop\n");
    expect(done).toEqual(["stop by owner"]);
  });
});
