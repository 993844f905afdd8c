import { ConnectionClosedError } from "@ollie/ninep";
import type { ToolsrvConn } from "@ollie/toolsrv/client";
import { describe, expect, it } from "vitest";
import { RedialingTools, ToolsrvLostError, type ToolsrvRoute } from "./redialing-tools.js";

/**
 * A connection that answers calls and listings with its own number and has not noticed any end, until
 * `cut()`: then what it is asked fails as a closed connection does, and `closed` resolves.
 */
function connection(n: number, closed: number[]) {
  let ended = () => {};
  let cut = false;
  const ask = async <T>(answer: T) => {
    if (cut) throw new ConnectionClosedError("connection closed");
    return answer;
  };
  const conn = {
    call: () => ask({ output: `conn ${n}` }),
    list: () => ask([{ name: `tool_of_${n}`, description: "", parameters: {} }]),
    revision: () => ask(n),
    closed: new Promise<void>((resolve) => {
      ended = resolve;
    }),
    close: async () => {
      closed.push(n);
    },
  } as unknown as ToolsrvConn;
  return {
    conn,
    cut: () => {
      cut = true;
      ended();
    },
  };
}

/** A route whose dials make numbered connections, and say what they were asked to load. */
function route(closed: number[]) {
  const dialled: Array<{ n: number; loaded: readonly string[] | undefined; cut(): void }> = [];
  let lost: string | undefined;
  const r: ToolsrvRoute = {
    dial: async (loaded) => {
      lost = undefined;
      const made = connection(dialled.length + 1, closed);
      dialled.push({ n: dialled.length + 1, loaded, cut: made.cut });
      return made.conn;
    },
    lostReason: () => lost,
    lostCall: async (error) =>
      new ToolsrvLostError("toolsrv", lost ?? error.message, `lost: ${lost ?? error.message}`),
  };
  return { r, dialled, lose: (why: string) => (lost = why) };
}

const signal = new AbortController().signal;

describe("RedialingTools", () => {
  it("dials again after its toolsrv was lost, before the old connection has noticed", async () => {
    const closed: number[] = [];
    const { r, lose } = route(closed);
    const tools = await RedialingTools.open(r);
    expect((await tools.call("t", {}, signal)).output).toBe("conn 1");
    expect((await tools.call("t", {}, signal)).output).toBe("conn 1");
    lose("toolsrv exited");
    expect((await tools.call("t", {}, signal)).output).toBe("conn 2");
    expect(closed).toEqual([1]);
  });

  it("ends a call its connection's end cut off with the route's error, and dials again with the tools it had", async () => {
    const { r, dialled } = route([]);
    const tools = await RedialingTools.open(r);
    expect((await tools.list()).map((t) => t.name)).toEqual(["tool_of_1"]);
    dialled[0]!.cut();
    const error = await tools.call("t", {}, signal).catch((e: unknown) => e);
    expect(error).toBeInstanceOf(ToolsrvLostError);
    expect((error as Error).message).toBe("lost: connection closed");
    expect(tools.current).toBeUndefined();
    expect(await tools.revision()).toBe(2);
    expect(dialled.map((d) => d.loaded)).toEqual([undefined, ["tool_of_1"]]);
  });

  it("keeps the last revision while its toolsrv cannot be reached, and a call says why", async () => {
    const { r, dialled } = route([]);
    const tools = await RedialingTools.open(r);
    expect(await tools.revision()).toBe(1);
    dialled[0]!.cut();
    r.dial = async () => {
      throw new Error("toolsrv is down");
    };
    expect(await tools.revision()).toBe(1);
    await expect(tools.call("t", {}, signal)).rejects.toThrow("toolsrv is down");
  });

  it("asks a listing again on a new connection when the old one turns out closed", async () => {
    const { r, dialled } = route([]);
    const tools = await RedialingTools.open(r);
    dialled[0]!.cut();
    expect((await tools.list()).map((t) => t.name)).toEqual(["tool_of_2"]);
  });
});
