import { mkdtempSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { fileURLToPath } from "node:url";
import type { MockReply, RecordedRequest } from "@ollie/backends/testing";
import { afterEach, describe, expect, it } from "vitest";
import { type Ollie, startOllie, untilTurns } from "./harness.js";
import { OtlpReceiver, type ReceivedSpan } from "./otlp-receiver.js";

const RECORD_IMPORTS = fileURLToPath(new URL("fixtures/record-imports.mjs", import.meta.url));

let o: Ollie | undefined;
let receiver: OtlpReceiver | undefined;
let scratch: string | undefined;
afterEach(async () => {
  if (scratch) rmSync(scratch, { recursive: true, force: true });
  scratch = undefined;
  await o?.stop();
  await o?.remove();
  o = undefined;
  receiver?.close();
  receiver = undefined;
});

describe("olliesrv's telemetry", () => {
  it("loads no part of the OpenTelemetry SDK when nothing asks for export", async () => {
    const imports = join(
      await import("node:os").then((os) => os.tmpdir()),
      `imports-${process.pid}-${Date.now()}`,
    );
    o = await startOllie("olliesrv-otel-off-", {
      nodeArgs: ["--import", RECORD_IMPORTS],
      env: { RECORD_IMPORTS: imports },
    });
    o.mock.enqueue({ text: "Hello." });
    const id = await o.create(`cwd=${o.work}`);
    await o.fsys.writeFile(`session/${id}/agent/main/prompt`, "Hi.");
    await untilTurns(o, `session/${id}/agent/main`, 1);
    const loaded = readFileSync(imports, "utf8").split("\n");
    // The recorder saw the API the libraries use (a no-op here), so it would have seen the SDK.
    expect(loaded.some((url) => url.includes("/@opentelemetry/api/"))).toBe(true);
    expect(
      loaded.filter((url) => /@opentelemetry\/(sdk-|exporter-|resources|core|context-async-hooks)/.test(url)),
    ).toEqual([]);
  });

  it("exports the daemon's sessions and agents as metrics to an OTLP endpoint in the environment", async () => {
    receiver = await OtlpReceiver.start();
    o = await startOllie("olliesrv-otel-metrics-", {
      env: { OTEL_EXPORTER_OTLP_ENDPOINT: receiver.url, OTEL_METRIC_EXPORT_INTERVAL: "100" },
    });
    const id = await o.create(`cwd=${o.work}`);
    const active = await receiver.until(() =>
      receiver?.metrics.find(
        (m) => m.name === "ollie.sessions.active" && m.points.some((p) => p.value === 1),
      ),
    );
    expect(active).toMatchObject({ service: "olliesrv", unit: "{session}" });
    expect(id).toMatch(/\d/);
    expect(await o.logged(/exporting traces \(otlp\) and metrics \(otlp\)/)).toBeTruthy();
  });
});

type Message = { role: string; content?: string | null };

/** The orchestrator reads a file and spawns a child in one step, then waits for its callback; the child answers. */
function model(request: RecordedRequest): MockReply {
  const messages = (request.body as { messages: Message[] }).messages;
  const last = messages.at(-1)!;
  if (!String(messages[0]?.content).includes("You are an orchestrator")) return { text: "Done." };
  if (last.role === "tool") return { text: "Spawned." };
  if (String(last.content).includes("\nSTATUS: ")) return { text: "Heard." };
  return {
    toolCalls: [
      { name: "file_read", arguments: { path: "notes.txt" } },
      { name: "subagent_spawn", arguments: { task: "Say done.", name: "child" } },
    ],
  };
}

const BACKEND_KEY = "sk-backend-literal-7f3e9a";
const HEADER_TOKEN = "otlp-header-token-51c2d8";

describe.each([
  { protocol: "http/protobuf", capture: false },
  { protocol: "http/json", capture: true },
])("a traced turn, $protocol, contents captured: $capture", ({ protocol, capture }) => {
  it("is one trace across olliesrv, toolsrv, the sandboxed launch and the spawned session, with no secret in it", async () => {
    receiver = await OtlpReceiver.start();
    o = await startOllie("olliesrv-otel-", {
      mock: { replies: model },
      setup: (config) => {
        const conf = join(config, "backends.conf");
        writeFileSync(
          conf,
          readFileSync(conf, "utf8").replace(
            "model = mock-model\n",
            `model = mock-model\nkey = ${BACKEND_KEY}\n`,
          ),
        );
      },
      env: {
        OTEL_EXPORTER_OTLP_ENDPOINT: receiver.url,
        OTEL_EXPORTER_OTLP_PROTOCOL: protocol,
        OTEL_EXPORTER_OTLP_HEADERS: `x-otlp-token=${HEADER_TOKEN}`,
        OTEL_BSP_SCHEDULE_DELAY: "50",
        OTEL_METRIC_EXPORT_INTERVAL: "200",
        ...(capture && { OTEL_INSTRUMENTATION_GENAI_CAPTURE_MESSAGE_CONTENT: "true" }),
      },
    });
    // What the file_read call returns holds the backend's key: captured as the call's result, it must be redacted.
    writeFileSync(join(o.work, "notes.txt"), `the key is ${BACKEND_KEY}\n`);
    const id = await o.create(`agent=orchestrator cwd=${o.work}`);
    const agent = `session/${id}/agent/main`;
    await o.fsys.writeFile(`${agent}/prompt`, "Do the task.");
    await untilTurns(o, agent, 2);

    const spans = () => receiver!.spans;
    const named = (name: string) => spans().filter((s) => s.name === name);
    const { parentTurn, childTurn, callbackTurn } = await receiver.until(() => {
      const turns = named("invoke_agent orchestrator");
      const parentTurn = turns.find((t) => t.links.length === 0);
      const callbackTurn = turns.find((t) => t.links.some((l) => l.attributes["ollie.link"] === "callback"));
      const childTurn = named("invoke_agent coding")[0];
      const launches = named("sandbox.launch subagent_spawn");
      return (
        parentTurn &&
        childTurn &&
        callbackTurn &&
        launches.length > 0 && { parentTurn, childTurn, callbackTurn }
      );
    });
    const trace = spans().filter((s) => s.traceId === parentTurn.traceId);
    const one = (name: string) => {
      const found = trace.filter((s) => s.name === name);
      expect(found, name).toHaveLength(1);
      return found[0]!;
    };
    const childOf = (child: ReceivedSpan, parent: ReceivedSpan) =>
      expect(child.parentSpanId).toBe(parent.spanId);

    // olliesrv: the turn, its model requests and its two tool calls.
    expect(parentTurn).toMatchObject({
      service: "olliesrv",
      kind: 1,
      parentSpanId: "",
      attributes: {
        "gen_ai.operation.name": "invoke_agent",
        "gen_ai.agent.name": "orchestrator",
        "gen_ai.conversation.id": id,
        "gen_ai.provider.name": "openai",
        "ollie.agent": "main",
        "ollie.agent.id": `${id}.main`,
        "ollie.turn.status": "done",
        "ollie.turn.steps": 1,
      },
    });
    const chats = trace.filter((s) => s.name === "chat mock-model" && s.parentSpanId === parentTurn.spanId);
    expect(chats).toHaveLength(2);
    expect(chats[0]).toMatchObject({
      kind: 3,
      attributes: {
        "gen_ai.operation.name": "chat",
        "gen_ai.request.model": "mock-model",
        "server.address": "127.0.0.1",
      },
    });
    expect(chats[0]!.attributes["gen_ai.usage.input_tokens"]).toEqual(expect.any(Number));
    const readCall = one("execute_tool file_read");
    const spawnCall = one("execute_tool subagent_spawn");
    for (const call of [readCall, spawnCall]) {
      childOf(call, parentTurn);
      expect(call.service).toBe("olliesrv");
      expect(call.attributes["gen_ai.tool.call.id"]).toEqual(expect.any(String));
    }
    // toolsrv, the launch and the tool: the spawn tool's TRACEPARENT makes the child's first turn its child.
    const served = trace.filter((s) => s.name === "toolsrv.call subagent_spawn");
    expect(served).toHaveLength(1);
    expect(served[0]).toMatchObject({
      service: "toolsrv",
      kind: 2,
      attributes: { "gen_ai.tool.name": "subagent_spawn" },
    });
    childOf(served[0]!, spawnCall);
    const launch = one("sandbox.launch subagent_spawn");
    expect(launch.service).toBe("toolsrv");
    childOf(launch, served[0]!);
    expect(childTurn).toMatchObject({
      service: "olliesrv",
      traceId: parentTurn.traceId,
      attributes: { "ollie.turn.status": "done" },
    });
    childOf(childTurn, launch);
    expect(childTurn.attributes["gen_ai.conversation.id"]).not.toBe(id);
    // The callback's turn is the parent's own, linked to the child's turn that called back.
    expect(callbackTurn.links).toContainEqual(
      expect.objectContaining({ traceId: childTurn.traceId, spanId: childTurn.spanId }),
    );

    // Each metric is exported once recorded: an export taken before the turns ended lacks the later ones.
    const wanted = [
      "gen_ai.client.token.usage",
      "gen_ai.client.operation.duration",
      "gen_ai.invoke_agent.duration",
      "gen_ai.execute_tool.duration",
    ];
    await receiver.until(() => {
      const names = new Set(receiver!.metrics.map((m) => m.name));
      return wanted.every((name) => names.has(name));
    });
    const tokens = receiver.metrics.find((m) => m.name === "gen_ai.client.token.usage")!;
    expect(tokens).toMatchObject({ service: "olliesrv", unit: "{token}" });
    expect(tokens.points.map((p) => p.attributes["gen_ai.token.type"])).toEqual(
      expect.arrayContaining(["input", "output"]),
    );

    // Contents only when asked for; secrets never, whatever reached a span.
    const raw = Buffer.concat(receiver.bodies.map((b) => b.body)).toString("latin1");
    expect(raw.includes("the key is")).toBe(capture);
    for (const secret of [BACKEND_KEY, HEADER_TOKEN, o.ownerKey()]) expect(raw).not.toContain(secret);
    expect(receiver.headers[0]?.["x-otlp-token"]).toBe(HEADER_TOKEN);
  });
});
