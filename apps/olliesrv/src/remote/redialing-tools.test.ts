import type { ToolsrvConn } from "@ollie/toolsrv/client";
import { describe, expect, it } from "vitest";
import { RedialingTools } from "./redialing-tools.js";

/** A connection that answers calls with its own number, and has not noticed any end. */
function connection(n: number, closed: number[]): ToolsrvConn {
  return {
    call: async () => ({ output: `conn ${n}` }),
    closed: new Promise<void>(() => {}),
    close: async () => {
      closed.push(n);
    },
  } as unknown as ToolsrvConn;
}

describe("RedialingTools", () => {
  it("dials again after its host's toolsrv was lost, before the old connection has noticed", async () => {
    let dials = 0;
    const closed: number[] = [];
    let lost: string | undefined;
    const tools = await RedialingTools.open(
      "host",
      async () => {
        lost = undefined;
        return connection(++dials, closed);
      },
      () => lost,
    );
    const signal = new AbortController().signal;
    expect((await tools.call("t", {}, signal)).output).toBe("conn 1");
    expect((await tools.call("t", {}, signal)).output).toBe("conn 1");
    lost = "toolsrv exited";
    expect((await tools.call("t", {}, signal)).output).toBe("conn 2");
    expect(closed).toEqual([1]);
  });
});
