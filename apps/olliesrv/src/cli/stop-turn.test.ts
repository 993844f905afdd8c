import { describe, expect, it } from "vitest";
import { stopTurn } from "./stop-turn.js";

/** A client whose ctl answers a write as `answer` says. */
const ctl = (answer: () => void) => {
  const written: string[] = [];
  return {
    written,
    write: async (path: string, text: string) => {
      written.push(`${path} ${text}`);
      answer();
    },
  };
};

describe("stopping a turn for a Ctrl-C", () => {
  it("writes stop to the agent's ctl", async () => {
    const client = ctl(() => {});
    await stopTurn(client, "session/1/agent/main");
    expect(client.written).toEqual(["session/1/agent/main/ctl stop\n"]);
  });

  it("takes a turn that ended meanwhile as stopped, and passes any other refusal on", async () => {
    const ended = ctl(() => {
      throw new Error("session/1/agent/main/ctl: nothing is running");
    });
    await expect(stopTurn(ended, "session/1/agent/main")).resolves.toBeUndefined();
    const gone = ctl(() => {
      throw new Error("session/1/agent/main/ctl: file does not exist");
    });
    await expect(stopTurn(gone, "session/1/agent/main")).rejects.toThrow("file does not exist");
  });
});
