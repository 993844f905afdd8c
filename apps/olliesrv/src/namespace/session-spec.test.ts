import { ConfigError } from "@ollie/config-file";
import { describe, expect, it } from "vitest";
import { parseSpec, SessionSpecError } from "./session-spec.js";

/** The error `parseSpec(spec)` throws. */
function refusal(spec: string): SessionSpecError {
  try {
    parseSpec(spec);
  } catch (error) {
    if (error instanceof SessionSpecError) return error;
    throw error;
  }
  throw new Error(`parseSpec accepted ${spec}`);
}

const KEYS =
  "(the keys are: agent, profile, cwd, remote, backend, model, name, callback, mcpServers, traceparent, tracestate)";

describe("a session spec", () => {
  it("takes key=value words or a JSON object of the same keys", () => {
    const words = "agent=coding cwd=/w remote=me@host:/src backend=mock model=big name=fix callback=no";
    const spec = {
      agent: "coding",
      cwd: "/w",
      remote: "me@host:/src",
      backend: "mock",
      model: "big",
      name: "fix",
      callback: false,
    };
    expect(parseSpec(words)).toEqual(spec);
    expect(parseSpec(`\n  ${words.replaceAll(" ", "\n  ")}\n`)).toEqual(spec);
    expect(parseSpec(JSON.stringify(spec))).toEqual(spec);
    expect(parseSpec(JSON.stringify({ ...spec, callback: "no" }))).toEqual(spec);
    expect(parseSpec("callback=yes")).toEqual({ callback: true });
    expect(parseSpec("")).toEqual({});
    expect(parseSpec("  {}  ")).toEqual({});
  });

  it("takes the span that asked for it as W3C trace context, and refuses one that is not", () => {
    const traceparent = "00-4bf92f3577b34da6a3ce929d0e0e4736-00f067aa0ba902b7-01";
    expect(parseSpec(`cwd=/w traceparent=${traceparent}`)).toEqual({ cwd: "/w", trace: { traceparent } });
    expect(parseSpec(JSON.stringify({ traceparent, tracestate: "k=v" }))).toEqual({
      trace: { traceparent, tracestate: "k=v" },
    });
    expect(refusal("traceparent=00-abc-def-01").message).toBe(
      "session spec:1:1: traceparent: a W3C traceparent, 00-TRACE_ID-SPAN_ID-FLAGS in lowercase hex",
    );
  });

  it("takes profile for agent, and the last word of a key written twice", () => {
    expect(parseSpec("profile=coding")).toEqual({ agent: "coding" });
    expect(parseSpec("agent=default profile=coding")).toEqual({ agent: "coding" });
    expect(parseSpec("profile=coding agent=default")).toEqual({ agent: "default" });
    expect(parseSpec('{"profile": "coding", "agent": "default"}')).toEqual({ agent: "default" });
    expect(parseSpec("name=a name=b")).toEqual({ name: "b" });
  });

  it("names a bad word and where it is", () => {
    expect(refusal("cwd=/w colour=red").message).toBe(`session spec:1:8: colour: unknown key ${KEYS}`);
    expect(refusal("cwd=/w oops").message).toBe(
      "session spec:1:8: a session spec is key=value words, not 'oops'",
    );
    expect(refusal("=x").message).toBe("session spec:1:1: a session spec is key=value words, not '=x'");
    expect(refusal("cwd=/w\n  callback=maybe").message).toBe(
      "session spec:2:3: callback: yes or no, not 'maybe'",
    );
    expect(refusal("name=x cwd=").message).toBe("session spec:1:8: cwd: needs a value");
    expect(refusal("remote=-oProxyCommand=x").message).toBe(
      "session spec:1:1: remote: '-oProxyCommand=x' is not an ssh destination ([user@]host)",
    );
    expect(refusal("agent=../../etc/x").message).toBe(
      "session spec:1:1: agent: '../../etc/x' is not a profile name (letters, digits, '_', '.', '-'; not starting with '.')",
    );
    const error = refusal("cwd=/w callback=maybe");
    expect(error).toBeInstanceOf(ConfigError);
    expect(error.name).toBe("SessionSpecError");
    expect(error.problems).toEqual([
      { key: "callback", problem: "yes or no, not 'maybe'", position: { line: 1, column: 8 } },
    ]);
  });

  it("names every bad key of a JSON spec, with its line and column", () => {
    const error = refusal('{"cwd": "/w",\n "callback": "maybe", "colour": 1, "model": 5}');
    expect(error.problems).toEqual([
      { key: "model", problem: "needs a value, not 5", position: { line: 2, column: 45 } },
      { key: "callback", problem: "yes or no, not 'maybe'", position: { line: 2, column: 14 } },
      { key: "colour", problem: `unknown key ${KEYS}`, position: { line: 2, column: 23 } },
    ]);
    expect(refusal('{"cwd": ').message).toBe("session spec:1:9: not JSON: unexpected end of the text");
  });

  it("takes the session's own MCP servers in a JSON spec, and names what is wrong with one", () => {
    const mcpServers = {
      files: { command: "mcp-files", args: ["--root", "."], env: { LEVEL: "1" } },
      docs: { url: "https://docs.example/mcp", headers: { Authorization: "Bearer x" } },
    };
    expect(parseSpec(JSON.stringify({ agent: "coding", mcpServers }))).toEqual({
      agent: "coding",
      mcpServers,
    });
    const named = refusal(JSON.stringify({ mcpServers: { "a b": { command: "x" } } }));
    expect(named.problems.map((p) => p.problem)).toEqual(["a server name is letters, digits, '_' and '-'"]);
    const shaped = refusal(JSON.stringify({ mcpServers: { ok: { cmd: "x" } } }));
    expect(shaped.problems.map((p) => p.problem)).toEqual([
      "a server is {command, args, env} or {url, headers}",
    ]);
  });
});
