import { createServer, type Server, type ServerResponse } from "node:http";
import type { AddressInfo } from "node:net";
import { afterEach, describe, expect, it } from "vitest";
import { OpenAiBackend } from "../providers/openai/openai-backend.js";
import { frameBytes } from "../testing/mock-reply.js";
import { renderOpenAi } from "../testing/wire/openai.js";

const reply = Buffer.concat(renderOpenAi({ text: "Hello." }, "m").frames.map(frameBytes));

let server: Server | undefined;
afterEach(() => server?.close());

/** A chat completions server whose responses are written by `respond`; counts the connections it takes. */
async function serve(respond: (res: ServerResponse) => void) {
  const seen = { connections: 0, closed: 0 };
  server = createServer((req, res) => {
    req.resume();
    req.on("end", () => {
      res.writeHead(200, { "content-type": "text/event-stream" });
      respond(res);
    });
  });
  server.on("connection", (socket) => {
    seen.connections++;
    socket.on("close", () => seen.closed++);
  });
  await new Promise<void>((resolve) => server!.listen(0, "127.0.0.1", resolve));
  const { port } = server.address() as AddressInfo;
  const backend = new OpenAiBackend({ baseUrl: `http://127.0.0.1:${port}/v1`, model: "m", apiKey: "k" });
  const ask = async () => {
    let text = "";
    for await (const e of backend.chatStream([{ role: "user", content: "hi" }], []))
      if (e.type === "done") text = e.message.content ?? "";
    return text;
  };
  return { seen, ask };
}

describe("the end of a response after its reply is complete", () => {
  it("is read rather than cut, so the next request reuses the connection", async () => {
    const { seen, ask } = await serve((res) => {
      res.write(reply);
      // The response's own end comes a moment after the reply's, as it may over a network.
      setTimeout(() => res.end(), 20);
    });
    expect(await ask()).toBe("Hello.");
    await new Promise((r) => setTimeout(r, 100));
    expect(await ask()).toBe("Hello.");
    expect(seen).toEqual({ connections: 1, closed: 0 });
  });

  it("does not hold the caller, and a response that never ends is cut a second later", async () => {
    const { seen, ask } = await serve((res) => res.write(reply));
    expect(await ask()).toBe("Hello.");
    // The reply was handed over while the response was still open: the caller did not wait for the cut.
    expect(seen.closed).toBe(0);
    await expect.poll(() => seen.closed, { timeout: 3000 }).toBeGreaterThan(0);
  });
});
