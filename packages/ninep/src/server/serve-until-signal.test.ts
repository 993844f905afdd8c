import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import { Ramfs } from "../ramfs/ramfs.js";
import { serveUntilSignal } from "./serve-until-signal.js";
import { NinepServer } from "./server.js";

describe("serveUntilSignal", () => {
  it("stops serving when its stop signal aborts, as at SIGTERM, and lets go of its signal handlers", async () => {
    const dir = mkdtempSync(join(tmpdir(), "ninep-serve-"));
    const server = new NinepServer(new Ramfs());
    const handlers = process.listenerCount("SIGTERM");
    const stop = new AbortController();
    try {
      const serving = serveUntilSignal(server, `unix!${join(dir, "sock")}`, () => stop.abort(), {
        stop: stop.signal,
      });
      await serving;
      expect(process.listenerCount("SIGTERM")).toBe(handlers);
    } finally {
      await server.close();
      rmSync(dir, { recursive: true, force: true });
    }
  });
});
