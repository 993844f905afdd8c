import { RateLimitedLines } from "@ollie/log";
import { ConnectionDroppedError, ConnectionRefusedError } from "@ollie/ninep";
import { describe, expect, it, vi } from "vitest";
import { connectionErrors } from "./connection-errors.js";
import { MountRefusal } from "./mount-socket.js";

describe("connectionErrors", () => {
  it("audits refusals and warns of drops, 20 per peer in 10 s, the rest summed up; mount refusals are audited already", () => {
    vi.useFakeTimers();
    try {
      const audited: string[] = [];
      const warned: string[] = [];
      const onError = connectionErrors(new RateLimitedLines((l) => audited.push(l)), (l) => warned.push(l));
      for (let i = 0; i < 1100; i++)
        onError(new ConnectionRefusedError("peer-full", "uid 1001", "it holds 128 connections"));
      onError(new ConnectionRefusedError("server-full", "tcp!192.0.2.7", "1024 connections are open"));
      for (let i = 0; i < 300; i++)
        onError(
          new ConnectionDroppedError("uid 1001", "message size 1048576 exceeds maxMessageBeforeVersion 8192"),
        );
      onError(
        new ConnectionRefusedError("unidentified", "unix", "not the owner's user", {
          cause: new MountRefusal("x"),
        }),
      );
      onError(new Error("clunk failed"));
      vi.advanceTimersByTime(10_000);
      expect(audited).toHaveLength(22);
      expect(audited[0]).toBe("refused a connection from uid 1001: it holds 128 connections");
      expect(audited.slice(20)).toEqual([
        "refused a connection from tcp!192.0.2.7: 1024 connections are open",
        "… and 1,080 more refusals from uid 1001 in the last 10 s",
      ]);
      expect(warned).toHaveLength(22);
      expect(warned[0]).toBe(
        "uid 1001: message size 1048576 exceeds maxMessageBeforeVersion 8192; connection closed",
      );
      expect(warned.slice(20)).toEqual([
        "clunk failed",
        "… and 280 more dropped connections from uid 1001 in the last 10 s",
      ]);
    } finally {
      vi.useRealTimers();
    }
  });
});
