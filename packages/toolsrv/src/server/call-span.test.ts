import {
  chmodSync,
  copyFileSync,
  mkdirSync,
  mkdtempSync,
  realpathSync,
  rmSync,
  writeFileSync,
} from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { fileURLToPath } from "node:url";
import { NinepClient, NinepServer, ORDWR } from "@ollie/ninep";
import { resolvePolicy } from "@ollie/sandbox";
import { buildTree, dir, file } from "@ollie/virtfs";
import { context, ROOT_CONTEXT, SpanKind, SpanStatusCode, TraceFlags, trace } from "@opentelemetry/api";
import { AsyncLocalStorageContextManager } from "@opentelemetry/context-async-hooks";
import {
  BasicTracerProvider,
  InMemorySpanExporter,
  type ReadableSpan,
  SimpleSpanProcessor,
} from "@opentelemetry/sdk-trace-base";
import { afterAll, afterEach, describe, expect, it, vi } from "vitest";
import { ToolsrvConn } from "../client/toolsrv-conn.js";
import { callFile } from "../namespace/call-file.js";
import { createToolServer } from "./tool-server.js";

const root = realpathSync(mkdtempSync(join(tmpdir(), "toolsrv-trace-")));
const dirs = { tools: join(root, "tools"), work: join(root, "work"), tmp: join(root, "tmp") };
for (const d of Object.values(dirs)) mkdirSync(d);
for (const [name, body] of [
  // What a tool's own OpenTelemetry SDK would read, "unset" where nothing is set.
  // biome-ignore lint/suspicious/noTemplateCurlyInString: the shell's parameter expansion
  ["show_trace", 'printf "%s\\n%s\\n" "${TRACEPARENT-unset}" "${TRACESTATE-unset}"'],
  ["fails", "echo no >&2; exit 3"],
]) {
  const path = join(dirs.tools, name!);
  writeFileSync(path, `#!/bin/sh\n# ollie:tool ${name}\n# ollie:description ${name} for tests.\n${body}\n`);
  chmodSync(path, 0o755);
}
const policy = await resolvePolicy({ env: { HOME: root, XDG_CONFIG_HOME: join(root, "no-config") } });

/**
 * A toolsrv serving only its `call` file, which keeps every write as it came, so a test sees the bytes a
 * client sends.
 */
async function serve(name: string, timing = false) {
  const server = createToolServer({
    toolsPath: [dirs.tools],
    policy,
    policyName: "strict",
    owner: "glenda",
    defaultTools: ["show_trace", "fails"],
    baseEnv: { PATH: "/usr/bin:/bin", TMPDIR: dirs.tmp },
    timing,
  });
  const written: string[] = [];
  const handlers = callFile(server.service);
  const recording: typeof handlers = {
    ...handlers,
    write(request) {
      written.push(Buffer.from(request.data).toString("utf8"));
      return handlers.write!(request);
    },
  };
  const address = `unix!${join(root, `${name}.sock`)}`;
  const ninep = new NinepServer(buildTree(dir("/", [file("call", recording, 0o666)])));
  await ninep.listen(address);
  const conns: ToolsrvConn[] = [];
  const conn = async (env: Record<string, string> = {}) => {
    const c = await ToolsrvConn.dial({ address, uname: "agent1", cwd: dirs.work, env });
    conns.push(c);
    return c;
  };
  const stop = async () => {
    await Promise.all(conns.map((c) => c.close()));
    await server.close();
    await ninep.close();
  };
  return { address, written, conn, stop };
}

const plain = await serve("plain");
const timed = await serve("timed", true);
afterAll(async () => {
  await plain.stop();
  await timed.stop();
  rmSync(root, { recursive: true, force: true });
});

const exporter = new InMemorySpanExporter();

/** An SDK as a daemon registers one, exporting to memory: until the test ends. */
function registerSdk(): void {
  context.setGlobalContextManager(new AsyncLocalStorageContextManager().enable());
  trace.setGlobalTracerProvider(
    new BasicTracerProvider({ spanProcessors: [new SimpleSpanProcessor(exporter)] }),
  );
}
afterEach(() => {
  trace.disable();
  context.disable();
  exporter.reset();
});

const signal = () => new AbortController().signal;
const spanNamed = (name: string): ReadableSpan => {
  const found = exporter.getFinishedSpans().filter((s) => s.name === name);
  expect(found, name).toHaveLength(1);
  return found[0]!;
};
/** The tool's TRACEPARENT and TRACESTATE, as it printed them. */
const seen = (output: string) => {
  const [traceparent, tracestate] = output.split("\n");
  return { traceparent, tracestate };
};
const TRACE_ID = "4bf92f3577b34da6a3ce929d0e0e4736";
const CALLER_SPAN = "00f067aa0ba902b7";

describe("a call's trace context", () => {
  it("is not in a call made without a span: the request is written as before", async () => {
    const conn = await plain.conn();
    const before = plain.written.length;
    const r = await conn.callRaw({ tool: "show_trace", args: { x: 1 } }, signal());
    expect(plain.written.slice(before)).toEqual([
      JSON.stringify({ tool: "show_trace", args: { x: 1 }, cwd: dirs.work, env: {} }),
    ]);
    // No SDK in toolsrv either: the tool gets no trace context.
    expect(seen(r.output)).toEqual({ traceparent: "unset", tracestate: "unset" });
    // Nor from a span that is not sampled: what is not recorded does not travel.
    registerSdk();
    const unsampled = trace.setSpanContext(ROOT_CONTEXT, {
      traceId: TRACE_ID,
      spanId: CALLER_SPAN,
      traceFlags: TraceFlags.NONE,
    });
    await context.with(unsampled, () => conn.callRaw({ tool: "show_trace", args: {} }, signal()));
    expect(plain.written.at(-1)).toBe(
      JSON.stringify({ tool: "show_trace", args: {}, cwd: dirs.work, env: {} }),
    );
  });

  it("goes with a call made in a sampled span, and the tool's process joins the trace under sandbox.launch", async () => {
    registerSdk();
    const conn = await plain.conn();
    const before = plain.written.length;
    const tracer = trace.getTracer("test");
    const caller = tracer.startSpan("execute_tool show_trace");
    const r = await context.with(trace.setSpan(ROOT_CONTEXT, caller), () =>
      conn.callRaw({ tool: "show_trace", args: {} }, signal()),
    );
    caller.end();
    const { traceId, spanId } = caller.spanContext();
    expect(JSON.parse(plain.written.slice(before).join(""))).toEqual({
      tool: "show_trace",
      args: {},
      cwd: dirs.work,
      env: {},
      traceparent: `00-${traceId}-${spanId}-01`,
    });
    const call = spanNamed("toolsrv.call show_trace");
    const launch = spanNamed("sandbox.launch show_trace");
    expect(call.kind).toBe(SpanKind.SERVER);
    expect(call.spanContext().traceId).toBe(traceId);
    expect(call.parentSpanContext?.spanId).toBe(spanId);
    expect(launch.kind).toBe(SpanKind.INTERNAL);
    expect(launch.parentSpanContext?.spanId).toBe(call.spanContext().spanId);
    expect(seen(r.output)).toEqual({
      traceparent: `00-${traceId}-${launch.spanContext().spanId}-01`,
      tracestate: "unset",
    });
    expect(call.attributes).toEqual({
      "gen_ai.tool.name": "show_trace",
      "ollie.agent.id": "agent1",
      "ollie.sandbox.policy": "strict",
      "ollie.tool.proc": r.proc,
      "ollie.tool.exit_code": 0,
      "ollie.tool.timed_out": false,
      "ollie.tool.cancelled": false,
    });
    expect(call.status.code).toBe(SpanStatusCode.UNSET);
    expect(launch.attributes).toMatchObject({
      "gen_ai.tool.name": "show_trace",
      "ollie.tool.exit_code": 0,
      "process.pid": expect.any(Number),
    });
  });

  it("replaces a TRACEPARENT and TRACESTATE of the session's environment, and hands on the caller's tracestate", async () => {
    registerSdk();
    const foreign = `00-${"a".repeat(32)}-${"b".repeat(16)}-01`;
    const conn = await plain.conn({ TRACEPARENT: foreign, TRACESTATE: "old=1" });
    const caller = trace.setSpanContext(ROOT_CONTEXT, {
      traceId: TRACE_ID,
      spanId: CALLER_SPAN,
      traceFlags: TraceFlags.SAMPLED,
      isRemote: true,
    });
    const r = await context.with(caller, () => conn.callRaw({ tool: "show_trace", args: {} }, signal()));
    const launch = spanNamed("sandbox.launch show_trace");
    expect(seen(r.output)).toEqual({
      traceparent: `00-${TRACE_ID}-${launch.spanContext().spanId}-01`,
      tracestate: "unset",
    });
    exporter.reset();
    const written = await rawCall(plain.address, {
      tool: "show_trace",
      args: {},
      cwd: dirs.work,
      env: { TRACEPARENT: foreign, TRACESTATE: "old=1" },
      traceparent: `00-${TRACE_ID}-${CALLER_SPAN}-01`,
      tracestate: "congo=t61rcWkgMzE",
    });
    const relaunched = spanNamed("sandbox.launch show_trace");
    expect(seen(written.output)).toEqual({
      traceparent: `00-${TRACE_ID}-${relaunched.spanContext().spanId}-01`,
      tracestate: "congo=t61rcWkgMzE",
    });
  });

  it("is handed to the tool as the call brought it when toolsrv records no spans", async () => {
    const tracestate = "congo=t61rcWkgMzE,  rojo=00f067aa0ba902b7";
    const traceparent = `00-${TRACE_ID}-${CALLER_SPAN}-01`;
    const r = await rawCall(plain.address, {
      tool: "show_trace",
      args: {},
      cwd: dirs.work,
      env: { TRACEPARENT: `00-${"a".repeat(32)}-${"b".repeat(16)}-01` },
      traceparent,
      tracestate,
    });
    expect(seen(r.output)).toEqual({ traceparent, tracestate });
    expect(exporter.getFinishedSpans()).toEqual([]);
  });

  it("is refused when its traceparent is not one, saying what one is", async () => {
    const r = await rawCall(plain.address, {
      tool: "show_trace",
      args: {},
      cwd: dirs.work,
      traceparent: `00-${"0".repeat(32)}-${CALLER_SPAN}-01`,
    });
    expect(r).toMatchObject({ isError: true });
    expect(r.output).toMatch(
      /^bad call request: .*traceparent.*must be a W3C traceparent: 00-<32 hex digits>/s,
    );
    const long = await rawCall(plain.address, {
      tool: "show_trace",
      args: {},
      cwd: dirs.work,
      traceparent: `00-${TRACE_ID}-${CALLER_SPAN}-01`,
      tracestate: `a=${"x".repeat(600)}`,
    });
    expect(long.output).toMatch(/tracestate must be at most 512 characters/);
  });
});

describe("toolsrv's spans", () => {
  it("say how a call failed, and set the caller's span's exit details", async () => {
    registerSdk();
    const conn = await plain.conn();
    const tracer = trace.getTracer("test");
    const caller = tracer.startSpan("execute_tool fails");
    const result = await context.with(trace.setSpan(ROOT_CONTEXT, caller), () =>
      conn.call("fails", {}, signal()),
    );
    caller.end();
    expect(result.isError).toBe(true);
    const call = spanNamed("toolsrv.call fails");
    expect(call.attributes).toMatchObject({ "error.type": "tool_error", "ollie.tool.exit_code": 3 });
    expect(call.status.code).toBe(SpanStatusCode.ERROR);
    const callerSpan = spanNamed("execute_tool fails");
    expect(callerSpan.attributes).toEqual({
      "ollie.tool.proc": call.attributes["ollie.tool.proc"],
      "ollie.tool.exit_code": 3,
      "ollie.tool.timed_out": false,
      "ollie.tool.cancelled": false,
    });
    // Not a tool error: the launch went well.
    expect(spanNamed("sandbox.launch fails").status.code).toBe(SpanStatusCode.UNSET);
  });

  it("say why a call was refused before it ran, and name no policy for a builtin", async () => {
    registerSdk();
    const conn = await plain.conn();
    await conn.callRaw({ tool: "nothing_here", args: {} }, signal());
    expect(spanNamed("toolsrv.call nothing_here").attributes).toMatchObject({ "error.type": "not_loaded" });
    await conn.callRaw({ tool: "tool_active", args: {} }, signal());
    const builtin = spanNamed("toolsrv.call tool_active");
    expect(builtin.attributes).toEqual({ "gen_ai.tool.name": "tool_active", "ollie.agent.id": "agent1" });
    expect(exporter.getFinishedSpans().filter((s) => s.name.startsWith("sandbox.launch"))).toEqual([]);
  });

  it("mark the sandbox launcher's refusal with its exit status", async () => {
    registerSdk();
    const r = await rawCall(plain.address, { tool: "show_trace", args: {}, cwd: join(root, "not-there") });
    expect(r).toMatchObject({ isError: true });
    const launch = spanNamed("sandbox.launch show_trace");
    expect(launch.attributes["error.type"]).toBe(String(r.exitCode));
    expect(launch.status).toMatchObject({
      code: SpanStatusCode.ERROR,
      message: expect.stringMatching(/^ollie-sandbox: /),
    });
    expect(spanNamed("toolsrv.call show_trace").attributes["error.type"]).toBe("sandbox_refused");
  });

  it("end a background run's launch once it started, and say the call was answered detached", async () => {
    registerSdk();
    const r = await rawCall(plain.address, { tool: "show_trace", args: {}, cwd: dirs.work, detach: true });
    expect(r).toMatchObject({ isError: false, detached: true });
    const launch = spanNamed("sandbox.launch show_trace");
    expect(launch.attributes).toEqual({
      "gen_ai.tool.name": "show_trace",
      "process.pid": expect.any(Number),
    });
    expect(spanNamed("toolsrv.call show_trace").attributes).toMatchObject({ "ollie.tool.detached": true });
  });

  it("carry the call's phases as events when timing is on", async () => {
    registerSdk();
    const conn = await timed.conn();
    await conn.callRaw({ tool: "show_trace", args: {} }, signal());
    const call = spanNamed("toolsrv.call show_trace");
    expect(call.events.map((e) => e.name)).toEqual([
      "parse",
      "validate",
      "lookup",
      "policy",
      "spawn",
      "run",
      "drain",
    ]);
    for (const event of call.events)
      expect(event.attributes?.["ollie.duration_ms"]).toBeGreaterThanOrEqual(0);
  });
});

describe("an MCP tool's call", () => {
  const probe = join(dirs.tmp, "probe-mcp-server.mjs");
  copyFileSync(fileURLToPath(new URL("../mcp/__fixtures__/probe-mcp-server.mjs", import.meta.url)), probe);
  const config = join(root, "mcp.json");
  writeFileSync(
    config,
    JSON.stringify({ mcpServers: { probe: { command: process.execPath, args: [probe] } } }),
  );
  const server = createToolServer({
    toolsPath: [dirs.tools],
    policy,
    owner: "glenda",
    defaultTools: ["mcp__probe__probe"],
    baseEnv: { PATH: "/usr/bin:/bin", TMPDIR: dirs.tmp },
    mcp: { file: config, workDir: join(root, "mcp") },
  });
  afterAll(() => server.close());

  it("is traced as MCP's conventions say, under toolsrv's span of the call", async () => {
    await vi.waitFor(
      async () => expect((await server.service.sources.tools("agent1")).has("mcp__probe__probe")).toBe(true),
      { timeout: 10_000, interval: 20 },
    );
    registerSdk();
    const r = await server.service.call(
      "agent1",
      {
        tool: "mcp__probe__probe",
        args: {},
        cwd: dirs.work,
        traceparent: `00-${TRACE_ID}-${CALLER_SPAN}-01`,
      },
      signal(),
    );
    expect(r).toMatchObject({ isError: false, exitCode: 0 });
    const call = spanNamed("toolsrv.call mcp__probe__probe");
    const request = spanNamed("tools/call probe");
    expect(call.parentSpanContext?.spanId).toBe(CALLER_SPAN);
    expect(request.kind).toBe(SpanKind.CLIENT);
    expect(request.spanContext().traceId).toBe(TRACE_ID);
    expect(request.parentSpanContext?.spanId).toBe(call.spanContext().spanId);
    expect(request.attributes).toEqual({
      "mcp.method.name": "tools/call",
      "gen_ai.operation.name": "execute_tool",
      "gen_ai.tool.name": "probe",
    });
  });
});

/** Writes one call to the `call` file as given, and reads its result. */
async function rawCall(address: string, request: Record<string, unknown>) {
  const client = await NinepClient.dial(address);
  try {
    const fsys = await client.attach({ uname: "agent1" });
    const f = await fsys.open("call", ORDWR);
    await f.write(JSON.stringify(request));
    const answer = JSON.parse((await f.read(0)).toString("utf8"));
    await f.close();
    return answer as { output: string; isError: boolean; exitCode?: number | null };
  } finally {
    client.close();
  }
}
