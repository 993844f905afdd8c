import { mkdtempSync, rmSync } from "node:fs";
import { createServer, type Server } from "node:net";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterEach, describe, expect, it } from "vitest";
import { ToolError } from "../tool-io.js";
import { askBroker, BROKER_GONE } from "./broker-client.js";
import { socketPath } from "./broker-protocol.js";

let dir: string | undefined;
let server: Server | undefined;
const tmp = process.env.TMPDIR;

afterEach(() => {
  server?.close();
  if (dir) rmSync(dir, { recursive: true, force: true });
  process.env.TMPDIR = tmp;
});

describe("a call to the broker", () => {
  it("ends at once, saying so, when the broker dies with its request pending", async () => {
    dir = mkdtempSync(join(tmpdir(), "lsp-client-"));
    process.env.TMPDIR = dir;
    // A broker that takes the request and dies before it answers: its end closes the connection.
    let took = () => {};
    const received = new Promise<void>((resolve) => {
      took = resolve;
    });
    server = createServer((socket) =>
      socket.once("data", () => {
        took();
        socket.destroy();
      }),
    );
    await new Promise<void>((ready) => server!.listen(socketPath(), ready));
    const asking = askBroker({ op: "symbols", cwd: dir, searchPath: "" });
    await received;
    const error = await asking.catch((e: unknown) => e);
    expect(error).toBeInstanceOf(ToolError);
    expect((error as Error).message).toBe(BROKER_GONE);
  });
});
