import { describe, expect, it } from "vitest";
import { socketAddress, socketPath } from "./broker-protocol.js";

describe("the broker's socket", () => {
  it("lives in TMPDIR, /tmp without one", () => {
    expect(socketPath({ TMPDIR: "/run/user/1000/ollie/s1.main" })).toBe(
      "/run/user/1000/ollie/s1.main/ollie-lsp.sock",
    );
    expect(socketPath({})).toBe("/tmp/ollie-lsp.sock");
  });

  it("is reached from its directory when its path is too long for a socket address", () => {
    expect(socketAddress("/tmp/a/ollie-lsp.sock")).toEqual({ address: "/tmp/a/ollie-lsp.sock" });
    const deep = `/tmp/${"d".repeat(120)}`;
    expect(socketAddress(`${deep}/ollie-lsp.sock`)).toEqual({ address: "ollie-lsp.sock", chdir: deep });
  });
});
