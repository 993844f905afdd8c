import { mkdirSync, readFileSync } from "node:fs";
import { join } from "node:path";
import {
  AttachRefusedError,
  connect,
  DialError,
  KeyFileError,
  type OllieClient,
  RefusedError,
} from "@ollie/client";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { type Ollie, startOllie } from "./harness.js";

let o: Ollie;
let owner: OllieClient;
beforeAll(async () => {
  o = await startOllie("olliesrv-client-connect-");
  owner = await connect({ env: o.env });
});
afterAll(async () => {
  owner.close();
  await o.stop();
  await o.remove();
});

/** An environment with a home of its own and nothing of Ollie's in it. */
function emptyEnv(name: string): NodeJS.ProcessEnv {
  const home = join(o.root, name);
  mkdirSync(home);
  return { HOME: home, NAMESPACE: join(home, "ns"), PATH: process.env.PATH };
}

describe("connecting to olliesrv", () => {
  it("attaches as the owner with the key olliesrv keeps, found from the environment", async () => {
    expect(owner.uname).toBe(o.owner);
    expect(owner.address).toBe(o.address);
    expect((await owner.stats()).sessions).toBeGreaterThanOrEqual(0);
    expect((await owner.profiles()).map((p) => p.name)).toContain("coding");
    expect(await owner.backends()).toContainEqual({
      name: "mock",
      type: "openai",
      model: "mock-model",
      isDefault: true,
    });
    expect((await owner.models()).map((m) => m.id)).toEqual(["mock-model", "other-model", "big-model"]);
  });

  it("attaches as an agent from OLLIE_UNAME, OLLIE_KEY and OLLIE_ADDRESS, and is held to what an agent may do", async () => {
    const session = await owner.newSession({ agent: "coding", cwd: o.work });
    const agent = session.agent();
    // The agent's secret is in its tools' environment alone: its own shell hands it to the test.
    o.mock.enqueue(
      {
        toolCalls: [
          {
            name: "shell",
            arguments: {
              command: `printf '%s\\n%s\\n%s\\n' "$OLLIE_UNAME" "$OLLIE_KEY" "$OLLIE_ADDRESS" > who`,
            },
          },
        ],
      },
      { text: "Written." },
    );
    expect((await (await agent.prompt("Say who you are")).ended).outcome.status).toBe("done");
    const [uname = "", key = "", address = ""] = readFileSync(join(o.work, "who"), "utf8").split("\n");
    expect(uname).toBe(agent.uname);
    expect(address).toBe(o.address);

    // Nothing but the agent's variables: no owner key to be found, no $NAMESPACE leading to olliesrv.
    const env = { ...emptyEnv("agent-home"), OLLIE_UNAME: uname, OLLIE_KEY: key, OLLIE_ADDRESS: address };
    const asAgent = await connect({ env });
    try {
      expect(asAgent.uname).toBe(agent.uname);
      expect((await asAgent.session(session.id).agent().cfg()).uname).toBe(agent.uname);
      // Its own prompt file is not its to write (mode 0466), nor may its ctl queue it a prompt.
      const self = asAgent.session(session.id).agent();
      await expect(self.prompt("Talk to yourself")).rejects.toMatchObject({
        name: "RefusedError",
        path: `session/${session.id}/agent/main/prompt`,
        reason: "permission denied",
      });
      const refused = await self.ctl("queue Talk to yourself").catch((error: unknown) => error);
      expect(refused).toBeInstanceOf(RefusedError);
      expect(refused).toMatchObject({
        path: `session/${session.id}/agent/main/ctl`,
        reason: "queue: an agent may not prompt itself",
        message: `session/${session.id}/agent/main/ctl: queue: an agent may not prompt itself`,
      });
      await expect(asAgent.reload()).rejects.toBeInstanceOf(RefusedError);
      // An MCP server is a command its session's tools run: an agent may not give one to a session it makes.
      await expect(
        asAgent.newSession({ cwd: o.work, mcpServers: { mine: { command: "sh", args: ["-c", "true"] } } }),
      ).rejects.toMatchObject({
        name: "RefusedError",
        reason: `only ${o.owner} may give a session MCP servers: they are commands its tools run`,
      });
    } finally {
      asAgent.close();
    }
    // A uname given outright is not the agent's: its key is then the one the caller names.
    await expect(connect({ env, uname: uname })).rejects.toBeInstanceOf(KeyFileError);
    await session.kill();
  });

  it("says when a key proves nobody, and when there is no key to read", async () => {
    const wrong = await connect({ address: o.address, key: "not the key" }).catch((error: unknown) => error);
    expect(wrong).toBeInstanceOf(AttachRefusedError);
    expect(wrong).toMatchObject({ address: o.address, uname: o.owner, reason: "authentication failed" });
    expect((wrong as Error).message).toBe(
      `olliesrv at ${o.address} refused to attach ${JSON.stringify(o.owner)}: authentication failed`,
    );
    const keyless = await connect({ address: o.address, env: emptyEnv("keyless") }).catch(
      (error: unknown) => error,
    );
    expect(keyless).toBeInstanceOf(KeyFileError);
    expect(keyless).toMatchObject({
      code: "ENOENT",
      file: join(o.root, "keyless", ".local/share/ollie/keys/owner.key"),
    });
    await expect(connect({ address: o.address, keyFile: o.keyFile })).resolves.toMatchObject({
      uname: o.owner,
    });
  });

  it("fails to dial a socket nothing listens on, and tells that olliesrv is not running", async () => {
    const nowhere = `unix!${join(o.root, "ns", "nobody-here")}`;
    const missing = await connect({ address: nowhere, env: o.env }).catch((error: unknown) => error);
    expect(missing).toBeInstanceOf(DialError);
    expect(missing).toMatchObject({ address: nowhere, code: "ENOENT", notRunning: true });
    expect((missing as Error).message).toMatch(/^cannot reach olliesrv at .*; is it running\?$/);

    // A daemon killed outright leaves its socket behind: dialling it is refused.
    const before = await connect({ env: o.env });
    await o.crash();
    await before.closed;
    const dead = await connect({ env: o.env }).catch((error: unknown) => error);
    expect(dead).toBeInstanceOf(DialError);
    expect(dead).toMatchObject({ address: o.address, code: "ECONNREFUSED", notRunning: true });
    const badPath = await connect({ address: "unix!/dev/null/ollie" }).catch((error: unknown) => error);
    expect(badPath).toMatchObject({ name: "DialError", code: "ENOTDIR", notRunning: false });
    await o.restart();
  });
});
