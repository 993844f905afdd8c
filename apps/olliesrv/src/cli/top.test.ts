import { describe, expect, it } from "vitest";
import type { SessionClient } from "./session-client.js";
import { Agents } from "./top.js";

describe("ollie top's agents", () => {
  it("lets an agent's statewait go when its files cannot be read, each time the session is tried", async () => {
    const opened: string[] = [];
    const closed: string[] = [];
    const client = {
      read: async (path: string) => {
        if (path === "session/idx") return "1796046449450612060-ab0742\tone\n";
        throw new Error(`${path}: permission denied`);
      },
      fsys: { readdir: async () => [{ name: "main" }] },
      watch: async (path: string) => {
        opened.push(path);
        return {
          next: () => new Promise<string>(() => {}),
          close: async () => {
            closed.push(path);
          },
        };
      },
    } as unknown as SessionClient;
    const agents = new Agents(client, () => {});
    await agents.discover(true);
    await agents.discover(true);
    expect(agents.rows).toEqual([]);
    expect(opened).toHaveLength(2);
    expect(closed).toEqual(opened);
  });
});
