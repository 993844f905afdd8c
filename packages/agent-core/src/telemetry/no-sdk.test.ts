import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { traceCarrierOf } from "@ollie/telemetry";
import { trace } from "@opentelemetry/api";
import { afterAll, describe, expect, it } from "vitest";
import { call, echoTool, scriptedAgent, tools } from "../__fixtures__/agents.js";
import { shellHooks } from "../hooks/shell-hooks.js";

const dir = mkdtempSync(join(tmpdir(), "agent-core-no-sdk-"));
afterAll(() => rmSync(dir, { recursive: true, force: true }));

describe("with no OpenTelemetry SDK registered", () => {
  it("a turn carries no trace to its tools or its hooks", async () => {
    let seen: { recording?: boolean; carrier?: unknown } = {};
    const probe = echoTool("probe", {
      run: () => {
        seen = { recording: trace.getActiveSpan()?.isRecording(), carrier: traceCarrierOf() };
        return "probed";
      },
    });
    const { agent, backend } = await scriptedAgent([call("probe"), { text: "ok" }], {
      tools: tools(probe),
      hooks: shellHooks(
        { preTurn: 'printf "[%s]" "$TRACEPARENT"' },
        { cwd: dir, env: { PATH: process.env.PATH } },
      ),
    });
    expect(
      await agent.submit("go", {
        parent: { traceparent: "00-0af7651916cd43dd8448eb211c80319c-b7ad6b7169203331-01" },
      }),
    ).toMatchObject({ status: "done" });
    expect(seen.recording).not.toBe(true);
    expect(seen.carrier).toBeUndefined();
    expect(backend.calls[0]!.messages.at(-1)?.content).toContain("[]");
  });
});
