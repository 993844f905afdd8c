import type { OllieClient } from "@ollie/client";
import { describe, expect, it } from "vitest";
import { Agents } from "./top.js";

describe("ollie top's agents", () => {
  it("lets an agent's state watch go when its files cannot be read, each time the session is tried", async () => {
    const opened: string[] = [];
    const closed: string[] = [];
    const refused = async () => {
      throw new Error("permission denied");
    };
    const agent = {
      uname: "1796046449450612060-ab0742.main",
      watchState: async () => {
        const n = String(opened.length);
        opened.push(n);
        return {
          next: () => new Promise<string>(() => {}),
          close: async () => {
            closed.push(n);
          },
        };
      },
      activity: refused,
      turns: refused,
      outcome: refused,
      usage: refused,
    };
    const client = {
      sessions: async () => [{ id: "1796046449450612060-ab0742", name: "one", state: "idle", cwd: "/" }],
      session: () => ({ agents: async () => ["main"], agent: () => agent, budget: refused }),
    } as unknown as OllieClient;
    const agents = new Agents(client, () => {});
    await agents.discover(true);
    await agents.discover(true);
    expect(agents.rows).toEqual([]);
    expect(opened).toHaveLength(2);
    expect(closed).toEqual(opened);
  });
});
