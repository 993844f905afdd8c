import { crc32 } from "node:zlib";
import { afterEach, describe, expect, it } from "vitest";
import type { MockReply } from "../mock-reply.js";
import { MockLlmServer } from "../mock-server.js";
import { kiroExampleBody } from "./kiro-fixtures.js";
import { KiroMock } from "./kiro-mock.js";

interface Frame {
  headers: Record<string, string>;
  payload: string;
  crcOk: boolean;
}

// A client's view of the body: AWS event-stream messages with string headers (B.5.1).
function decode(bytes: Buffer): Frame[] {
  const frames: Frame[] = [];
  for (let at = 0; at < bytes.length; ) {
    const total = bytes.readUInt32BE(at);
    const headersEnd = at + 12 + bytes.readUInt32BE(at + 4);
    const crcOk =
      bytes.readUInt32BE(at + 8) === crc32(bytes.subarray(at, at + 8)) &&
      bytes.readUInt32BE(at + total - 4) === crc32(bytes.subarray(at, at + total - 4));
    const headers: Record<string, string> = {};
    for (let p = at + 12; p < headersEnd; ) {
      const name = bytes.subarray(p + 1, p + 1 + bytes[p]!).toString();
      p += 1 + bytes[p]!;
      expect(bytes[p]).toBe(7);
      const length = bytes.readUInt16BE(p + 1);
      headers[name] = bytes.subarray(p + 3, p + 3 + length).toString();
      p += 3 + length;
    }
    frames.push({ headers, payload: bytes.subarray(headersEnd, at + total - 4).toString(), crcOk });
    at += total;
  }
  return frames;
}

const kinds = (frames: Frame[]) =>
  frames.map((f) => f.headers[":event-type"] ?? f.headers[":exception-type"]);
const payloads = (frames: Frame[], type: string) =>
  frames.filter((f) => f.headers[":event-type"] === type).map((f) => JSON.parse(f.payload));
const textOf = (frames: Frame[]) =>
  payloads(frames, "assistantResponseEvent")
    .map((p) => p.content)
    .join("");

const EXAMPLE = kiroExampleBody();

let server: MockLlmServer | undefined;
afterEach(async () => {
  await server?.close();
  server = undefined;
});

async function start() {
  server = await MockLlmServer.start();
  const kiro = new KiroMock();
  server.mount("/kiro", "kiro", kiro);
  const base = `${server.url}/kiro`;
  const { accessToken } = kiro.socialCredentials();
  const send = (headers: Record<string, string> = {}, path = "/generateAssistantResponse") =>
    fetch(`${base}${path}`, {
      method: "POST",
      headers: { authorization: `Bearer ${accessToken}`, "content-type": "application/json", ...headers },
      body: JSON.stringify(EXAMPLE),
    });
  const stream = async (reply: MockReply) => {
    server!.enqueue(reply);
    const res = await send();
    return { res, frames: decode(Buffer.from(await res.arrayBuffer())) };
  };
  return { kiro, send, stream };
}

describe("generateAssistantResponse stream", () => {
  it("accepts the B.4.2 example and streams text, metering, then context usage", async () => {
    const { stream } = await start();
    const { res, frames } = await stream({ text: "Two files: a.ts and b.ts." });
    expect(res.status).toBe(200);
    expect(res.headers.get("content-type")).toBe("application/vnd.amazon.eventstream");
    expect(res.headers.get("x-amzn-requestid")).toMatch(/^[0-9a-f-]{36}$/);
    expect(frames.every((f) => f.crcOk)).toBe(true);
    expect(frames[0]!.headers).toEqual({
      ":event-type": "assistantResponseEvent",
      ":content-type": "application/json",
      ":message-type": "event",
    });
    expect(textOf(frames)).toBe("Two files: a.ts and b.ts.");
    expect(payloads(frames, "assistantResponseEvent").length).toBe(7);
    expect(kinds(frames).slice(-2)).toEqual(["meteringEvent", "contextUsageEvent"]);
    expect(payloads(frames, "meteringEvent")[0]).toEqual({
      unit: "credit",
      unitPlural: "credits",
      usage: 0.0421,
    });
    expect(payloads(frames, "contextUsageEvent")[0].contextUsagePercentage).toBeGreaterThan(0);
    expect(server!.lastRequest).toMatchObject({ provider: "kiro", model: "claude-sonnet-4.5" });
    expect(server!.lastRequest!.rejected).toBeUndefined();
  });

  it("frames a text event byte for byte as the worked example of B.5.2", async () => {
    const { send } = await start();
    server!.enqueue({ text: "Hi" });
    const bytes = Buffer.from(await (await send()).arrayBuffer());
    expect(bytes.subarray(0, 124).toString("hex")).toBe(
      "0000007c0000005c3bddcf780b3a6576656e742d74797065070016617373697374616e74526573706f6e73654576656e74" +
        "0d3a636f6e74656e742d747970650700106170706c69636174696f6e2f6a736f6e0d3a6d6573736167652d7479706507" +
        "00056576656e747b22636f6e74656e74223a224869227db02babdc",
    );
  });

  it("streams reasoning as <thinking> text with both tags split across events", async () => {
    const { stream } = await start();
    const { frames } = await stream({ reasoning: "User wants files.", text: "Here.", chunkSize: 50 });
    const contents = payloads(frames, "assistantResponseEvent").map((p) => p.content as string);
    expect(contents.join("")).toBe("<thinking>User wants files.</thinking>\n\nHere.");
    expect(contents.some((c) => c.includes("<thinking>") || c.includes("</thinking>"))).toBe(false);
  });

  it("streams two tool calls as fragmented toolUseEvents, each ending with stop", async () => {
    const { stream } = await start();
    const { frames } = await stream({
      text: "Running.",
      toolCalls: [
        { name: "bash", arguments: { command: "ls -la" } },
        { id: "tooluse_given", name: "read", arguments: {} },
      ],
    });
    const events = payloads(frames, "toolUseEvent");
    const ids = [...new Set(events.map((e) => e.toolUseId as string))];
    expect(ids).toHaveLength(2);
    expect(ids[0]).toMatch(/^tooluse_[A-Za-z0-9]{22}$/);
    expect(ids[1]).toBe("tooluse_given");
    for (const [id, name, args] of [
      [ids[0], "bash", { command: "ls -la" }],
      [ids[1], "read", {}],
    ] as const) {
      const mine = events.filter((e) => e.toolUseId === id);
      expect(mine.every((e) => e.name === name)).toBe(true);
      const fragments = mine.filter((e) => "input" in e);
      expect(fragments.length).toBeGreaterThanOrEqual(3);
      expect(JSON.parse(fragments.map((e) => e.input).join(""))).toEqual(args);
      expect(mine.at(-1)).toEqual({ name, toolUseId: id, stop: true });
    }
    expect(kinds(frames).indexOf("toolUseEvent")).toBeGreaterThan(
      kinds(frames).indexOf("assistantResponseEvent"),
    );
    expect(kinds(frames).slice(-2)).toEqual(["meteringEvent", "contextUsageEvent"]);
  });

  it("reports scripted usage in metadataEvent and contextUsagePercentage", async () => {
    const { stream } = await start();
    const { frames } = await stream({
      text: "ok",
      usage: { input: 20_000, output: 50, cachedInput: 15_000, cacheCreation: 1_000 },
    });
    expect(kinds(frames).slice(-3)).toEqual(["meteringEvent", "metadataEvent", "contextUsageEvent"]);
    expect(payloads(frames, "metadataEvent")[0]).toEqual({
      tokenUsage: {
        uncachedInputTokens: 4_000,
        outputTokens: 50,
        totalTokens: 20_050,
        cacheReadInputTokens: 15_000,
        cacheWriteInputTokens: 1_000,
      },
    });
    expect(payloads(frames, "contextUsageEvent")[0]).toEqual({ contextUsagePercentage: 10 });
  });

  it("ends a length-stopped reply with ContentLengthExceededException", async () => {
    const { stream } = await start();
    const { frames } = await stream({ text: "cut short", stopReason: "length" });
    const last = frames.at(-1)!;
    expect(last.headers[":message-type"]).toBe("exception");
    expect(last.headers[":exception-type"]).toBe("ContentLengthExceededException");
    expect(JSON.parse(last.payload).message).toEqual(expect.any(String));
    expect(textOf(frames)).toBe("cut short");
  });

  it("delivers the body in writeSize slices that decode to the same frames", async () => {
    const { send } = await start();
    const reply: MockReply = {
      text: "héllo ✓",
      chunkSize: 8,
      toolCalls: [{ name: "bash", arguments: { c: "é" } }],
    };
    server!.enqueue(reply, { ...reply, writeSize: 13 });
    const whole = Buffer.from(await (await send()).arrayBuffer());
    const chunks: Uint8Array[] = [];
    for await (const chunk of (await send()).body!) chunks.push(chunk);
    expect(chunks.length).toBeGreaterThan(1);
    const sliced = decode(Buffer.concat(chunks));
    expect(sliced.every((f) => f.crcOk)).toBe(true);
    // Tool ids are fresh per reply; everything else is identical.
    const strip = (frames: Frame[]) => frames.map((f) => f.payload.replace(/tooluse_\w+/g, "ID"));
    expect(strip(sliced)).toEqual(strip(decode(whole)));
  });

  it("answers the SDK-style POST / with X-Amz-Target the same way", async () => {
    const { send } = await start();
    server!.enqueue({ text: "sdk" });
    const res = await send(
      {
        "content-type": "application/x-amz-json-1.0",
        "x-amz-target": "AmazonCodeWhispererStreamingService.GenerateAssistantResponse",
      },
      "/",
    );
    expect(textOf(decode(Buffer.from(await res.arrayBuffer())))).toBe("sdk");
  });
});

describe("faults", () => {
  const errorOf = async (res: Response) => ({
    status: res.status,
    type: res.headers.get("x-amzn-errortype"),
    body: await res.json(),
  });

  it.each([
    [
      { type: "rate_limit", retryAfter: 7 },
      { status: 429, type: "ThrottlingException", body: { message: "Rate limit exceeded", reason: null } },
    ],
    [
      { type: "server_error", status: 503 },
      { status: 503, type: "ServiceUnavailableException" },
    ],
    [
      { type: "overloaded" },
      { status: 429, type: "ThrottlingException", body: { reason: "INSUFFICIENT_MODEL_CAPACITY" } },
    ],
    [
      { type: "context_overflow" },
      { status: 400, body: { message: "Input is too long.", reason: "CONTENT_LENGTH_EXCEEDS_THRESHOLD" } },
    ],
    [
      { type: "auth" },
      { status: 403, body: { message: "The bearer token included in the request is invalid." } },
    ],
    [
      { type: "tool_unsupported" },
      { status: 400, body: { message: "Improperly formed request.", reason: null } },
    ],
  ] as const)("answers %o before any stream", async (fault, expected) => {
    const { send } = await start();
    server!.enqueue({ text: "never", fault });
    const res = await send();
    expect(res.headers.get("x-amzn-requestid")).toBeTruthy();
    if (fault.type === "rate_limit") expect(res.headers.get("retry-after")).toBe("7");
    expect(await errorOf(res)).toMatchObject(expected);
  });

  it.each([
    [undefined, "InternalServerException"],
    ["ThrottlingException", "ThrottlingException"],
  ] as const)("streams partial text then an exception (%s)", async (streamException, type) => {
    const { kiro, stream } = await start();
    kiro.nextStreamQuirks({ ...(streamException && { streamException }) });
    const { res, frames } = await stream({
      text: "unused",
      fault: { type: "stream_error", afterText: "half" },
    });
    expect(res.status).toBe(200);
    expect(textOf(frames)).toBe("half");
    expect(frames.at(-1)!.headers).toMatchObject({ ":message-type": "exception", ":exception-type": type });
    expect(JSON.parse(frames.at(-1)!.payload)).toEqual({ message: expect.any(String) });
  });

  it("corrupts the CRC of the chosen frame only", async () => {
    const { kiro, stream } = await start();
    kiro.nextStreamQuirks({ corruptCrcAt: 1 });
    const { frames } = await stream({ text: "abcdefgh" });
    expect(frames.map((f) => f.crcOk)).toEqual(frames.map((_, i) => i !== 1));
  });

  it("duplicates a text event and a tool call, and truncates tool input without stop", async () => {
    const { kiro, stream } = await start();
    kiro.nextStreamQuirks({ duplicateText: true, duplicateToolCall: true }, { truncateToolInput: true });
    const call = { name: "bash", arguments: { command: "echo hello" } };
    const dup = (await stream({ text: "abcdefgh", toolCalls: [call] })).frames;
    expect(payloads(dup, "assistantResponseEvent").map((p) => p.content)).toEqual(["abcd", "abcd", "efgh"]);
    const uses = payloads(dup, "toolUseEvent");
    expect(uses.filter((u) => u.stop)).toHaveLength(2);
    expect(new Set(uses.map((u) => u.toolUseId)).size).toBe(1);
    const cut = payloads((await stream({ toolCalls: [call] })).frames, "toolUseEvent");
    expect(cut.some((u) => u.stop)).toBe(false);
    expect(() => JSON.parse(cut.map((u) => u.input).join(""))).toThrow();
  });

  it("ends a stream with a :message-type error message", async () => {
    const { kiro, stream } = await start();
    kiro.nextStreamQuirks({ errorMessage: { code: "InternalFailure", message: "boom" } });
    const { frames } = await stream({ text: "ab" });
    expect(frames.at(-1)).toEqual({
      headers: { ":error-code": "InternalFailure", ":error-message": "boom", ":message-type": "error" },
      payload: "boom",
      crcOk: true,
    });
  });

  it("keeps the connection open after the last frame", async () => {
    const { kiro, send } = await start();
    kiro.nextStreamQuirks({ keepOpenMs: 1_000 });
    server!.enqueue({ text: "hi" });
    const reader = (await send()).body!.getReader();
    const chunks: Uint8Array[] = [];
    while (!kinds(decode(Buffer.concat(chunks))).includes("contextUsageEvent")) {
      const { value } = await reader.read();
      chunks.push(value!);
    }
    const next = await Promise.race([reader.read(), new Promise((r) => setTimeout(() => r("open"), 150))]);
    expect(next).toBe("open");
    await reader.cancel();
  });
});
