import { mkdtempSync, realpathSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { NinepServer } from "@ollie/ninep";
import { buildTree, dir, file } from "@ollie/virtfs";
import { context, ROOT_CONTEXT, TraceFlags, trace } from "@opentelemetry/api";
import { AsyncLocalStorageContextManager } from "@opentelemetry/context-async-hooks";
import { afterAll, afterEach, describe, expect, it } from "vitest";
import { callFile } from "../namespace/call-file.js";
import type { CallResult } from "../protocol/call.js";
import type { ToolService } from "../server/tool-service.js";
import { ToolsrvConn } from "./toolsrv-conn.js";

const root = realpathSync(mkdtempSync(join(tmpdir(), "toolsrv-conn-")));
afterAll(() => rmSync(root, { recursive: true, force: true }));
afterEach(() => context.disable());

/**
 * The `call` file of a toolsrv that predates trace context: it refuses the keys it does not know, as its
 * strict schema did, and runs the rest. Every request it was sent is kept.
 */
async function olderToolsrv() {
  const requests: Record<string, unknown>[] = [];
  const service = {
    startTiming: () => undefined,
    call: async (_uname: string, raw: Record<string, unknown>): Promise<CallResult> => {
      requests.push(raw);
      const unknown = Object.keys(raw).filter((k) => !["tool", "args", "cwd", "env", "detach"].includes(k));
      if (unknown.length > 0)
        return {
          output: `bad call request: ${unknown.map((k) => `${k}: unknown key (the keys are: tool, args, cwd, env, detach)`).join("; ")}`,
          isError: true,
        };
      return { output: `ran ${raw.tool}\n`, isError: false, exitCode: 0 };
    },
  } as unknown as ToolService;
  const address = `unix!${join(root, "older.sock")}`;
  const server = new NinepServer(buildTree(dir("/", [file("call", callFile(service), 0o666)])));
  await server.listen(address);
  return { address, requests, close: () => server.close() };
}

describe("ToolsrvConn's trace context", () => {
  it("is sent again without it to a toolsrv that refuses it, and not sent to that toolsrv again", async () => {
    const older = await olderToolsrv();
    const conn = await ToolsrvConn.dial({ address: older.address, uname: "agent1", cwd: root });
    try {
      context.setGlobalContextManager(new AsyncLocalStorageContextManager().enable());
      const traced = trace.setSpanContext(ROOT_CONTEXT, {
        traceId: "4bf92f3577b34da6a3ce929d0e0e4736",
        spanId: "00f067aa0ba902b7",
        traceFlags: TraceFlags.SAMPLED,
      });
      const call = () => context.with(traced, () => conn.call("hello", {}, new AbortController().signal));
      expect(await call()).toEqual({ output: "ran hello\n" });
      expect(await call()).toEqual({ output: "ran hello\n" });
      const plain = { tool: "hello", args: {}, cwd: root, env: {} };
      expect(older.requests).toEqual([
        { ...plain, traceparent: "00-4bf92f3577b34da6a3ce929d0e0e4736-00f067aa0ba902b7-01" },
        plain,
        plain,
      ]);
    } finally {
      await conn.close();
      await older.close();
    }
  });
});
