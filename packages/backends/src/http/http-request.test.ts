import { createServer } from "node:net";
import { describe, expect, it } from "vitest";
import { TransientError, UnreachableError } from "../errors.js";
import { OpenAiBackend } from "../providers/openai/openai-backend.js";
import { closedPort } from "../testing/closed-port.js";
import { send, unreachableCode } from "./http-request.js";

describe("a request that cannot connect", () => {
  it("is an UnreachableError when the connection is refused, naming the URL and the code", async () => {
    const port = await closedPort();
    const error = await send(
      { provider: "ollama", profile: "local" },
      `http://127.0.0.1:${port}/api/tags`,
    ).catch((e: unknown) => e);
    expect(error).toBeInstanceOf(UnreachableError);
    expect(error).toBeInstanceOf(TransientError);
    expect(error).toMatchObject({
      name: "UnreachableError",
      provider: "ollama",
      profile: "local",
      code: "ECONNREFUSED",
      status: undefined,
      retryable: true,
    });
    expect((error as Error).message).toBe(
      `local: request to http://127.0.0.1:${port}/api/tags failed: connect ECONNREFUSED 127.0.0.1:${port}`,
    );
  });

  it("is an UnreachableError from a backend's model list as from its chat, naming its provider and profile", async () => {
    const port = await closedPort();
    const backend = new OpenAiBackend({
      name: "lab",
      baseUrl: `http://127.0.0.1:${port}/v1`,
      model: "m",
      apiKey: "k",
    });
    const named = { provider: "openai", profile: "lab", message: expect.stringMatching(/^lab: /) };
    await expect(backend.models()).rejects.toBeInstanceOf(UnreachableError);
    await expect(backend.models()).rejects.toMatchObject(named);
    const chat = async () => {
      for await (const _ of backend.chatStream([{ role: "user", content: "hi" }], [])) {
        // nothing arrives
      }
    };
    await expect(chat()).rejects.toMatchObject({ name: "UnreachableError", code: "ECONNREFUSED", ...named });
  });

  it("stays a plain TransientError when the server is there but drops the connection", async () => {
    const server = createServer((socket) => socket.destroy());
    await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
    const { port } = server.address() as { port: number };
    try {
      const error = await send({ provider: "openai" }, `http://127.0.0.1:${port}/`).catch((e: unknown) => e);
      expect(error).toBeInstanceOf(TransientError);
      expect(error).not.toBeInstanceOf(UnreachableError);
    } finally {
      await new Promise<void>((resolve) => server.close(() => resolve()));
    }
  });

  it("finds the code inside causes, and in an AggregateError only when every address was unreachable", () => {
    const refused = Object.assign(new Error("connect ECONNREFUSED ::1:11434"), { code: "ECONNREFUSED" });
    const timedOut = Object.assign(new Error("connect ETIMEDOUT 10.0.0.1:80"), { code: "ETIMEDOUT" });
    const unreachable = Object.assign(new Error("connect EHOSTUNREACH"), { code: "EHOSTUNREACH" });
    expect(unreachableCode(new Error("fetch failed", { cause: refused }))).toBe("ECONNREFUSED");
    expect(unreachableCode(new AggregateError([refused, unreachable]))).toBe("ECONNREFUSED");
    expect(unreachableCode(new AggregateError([refused, timedOut]))).toBeUndefined();
    expect(unreachableCode(timedOut)).toBeUndefined();
    expect(unreachableCode(Object.assign(new Error("reset"), { code: "ECONNRESET" }))).toBeUndefined();
    expect(unreachableCode("ECONNREFUSED")).toBeUndefined();
  });
});
