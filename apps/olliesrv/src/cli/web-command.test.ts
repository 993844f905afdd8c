import { describe, expect, it } from "vitest";
import { parseListen } from "./web-command.js";

describe("ollie web --listen", () => {
  it("takes HOST:PORT, [IPv6]:PORT or a port alone, on a loopback address of its own by default", () => {
    const loopback = /^127\.([1-9]\d*)\.(\d+)\.([1-9]\d*)$/;
    expect(parseListen(undefined)).toEqual({ host: expect.stringMatching(loopback), port: 0 });
    expect(parseListen("8080")).toEqual({ host: expect.stringMatching(loopback), port: 8080 });
    expect(parseListen(undefined).host).not.toBe(parseListen(undefined).host);
    expect(parseListen("0.0.0.0:8080")).toEqual({ host: "0.0.0.0", port: 8080 });
    expect(parseListen("[::1]:9000")).toEqual({ host: "::1", port: 9000 });
    expect(parseListen("localhost:0")).toEqual({ host: "localhost", port: 0 });
  });

  it.each(["", "host", "host:", ":80", "1.2.3.4:70000", "::1:80", "a b:80"])("refuses '%s'", (given) => {
    expect(() => parseListen(given)).toThrow(/--listen takes HOST:PORT or PORT/);
  });
});
