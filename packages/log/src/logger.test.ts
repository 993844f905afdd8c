import { describe, expect, it } from "vitest";
import { parseLogSettings } from "./log-settings.js";
import { createLogger, type LoggerOptions } from "./logger.js";

/** A logger writing into an array, one entry per write, at a fixed time. */
function capture(options: Partial<LoggerOptions> = {}) {
  const writes: string[] = [];
  const log = createLogger({
    program: "olliesrv",
    stream: { write: (chunk: string) => writes.push(chunk) },
    now: () => new Date("2026-11-30T21:40:00.123Z"),
    ...options,
  });
  return { log, writes };
}

const T = "2026-11-30T21:40:00.123Z";

describe("a logger", () => {
  it("writes one line per call, with the program and the category", () => {
    const { log, writes } = capture();
    log.info("serving on unix!/tmp/ns/ollie");
    log.child("audit").warn("refused attach as eve from unix: authentication failed");
    log.error("cannot read the owner key");
    expect(writes).toEqual([
      `${T} INFO  olliesrv: serving on unix!/tmp/ns/ollie\n`,
      `${T} WARN  olliesrv[audit]: refused attach as eve from unix: authentication failed\n`,
      `${T} ERROR olliesrv: cannot read the owner key\n`,
    ]);
  });

  it("writes info and more severe by default", () => {
    const { log, writes } = capture();
    log.debug("not shown");
    log.trace("not shown");
    log.info("shown");
    expect(writes).toEqual([`${T} INFO  olliesrv: shown\n`]);
    expect([log.enabled("info"), log.enabled("debug")]).toEqual([true, false]);
  });

  it("holds each category to its own threshold, and the rest to the general one", () => {
    const { log, writes } = capture({
      settings: parseLogSettings("warn,9p=trace,audit=silent", "--log-level"),
    });
    const [nineP, audit, sessions] = ["9p", "audit", "sessions"].map((c) => log.child(c));
    log.info("root info");
    log.warn("root warn");
    nineP!.trace("<- Tversion tag 65535 msize 8192 version '9P2000'");
    audit!.error("never");
    sessions!.info("no");
    sessions!.error("save failed");
    expect(writes.map((w) => w.slice(T.length + 1))).toEqual([
      "WARN  olliesrv: root warn\n",
      "TRACE olliesrv[9p]: <- Tversion tag 65535 msize 8192 version '9P2000'\n",
      "ERROR olliesrv[sessions]: save failed\n",
    ]);
    expect(audit!.enabled("error")).toBe(false);
  });

  it("writes nothing at all when silent", () => {
    const { log, writes } = capture({ settings: parseLogSettings("silent", "$OLLIE_LOG") });
    for (const level of ["error", "warn", "info", "debug", "trace"] as const) log[level]("x");
    expect(writes).toEqual([]);
  });

  it("cannot be made to write a forged line by a message", () => {
    const { log, writes } = capture();
    log.child("audit").warn(`refused attach as mallory\n${T} INFO  olliesrv: all is well\r\x1b[2Kfrom unix`);
    expect(writes).toHaveLength(1);
    const escaped = `mallory\\n${T} INFO  olliesrv: all is well\\r\\x1b[2Kfrom unix`;
    expect(writes[0]!.split("\n")).toEqual([`${T} WARN  olliesrv[audit]: refused attach as ${escaped}`, ""]);
  });

  it("replaces the secrets it was given, and those added later, in every category's lines", () => {
    const { log, writes } = capture({ secrets: ["0123abcd", ""] });
    const tools = log.child("tools");
    log.addSecret("owner-key-text");
    tools.info("started with key 0123abcd");
    log.error("owner-key-text is not a key");
    expect(writes).toEqual([
      `${T} INFO  olliesrv[tools]: started with key [redacted]\n`,
      `${T} ERROR olliesrv: [redacted] is not a key\n`,
    ]);
  });

  it("redacts text for elsewhere with the same secrets, those added later and the caller's redaction", () => {
    const { log, writes } = capture({
      secrets: ["0123abcd"],
      redact: (text) => text.replace(/:[^:@/]+@/g, ":***@"),
    });
    log.child("telemetry").addSecret("owner-key-text");
    expect(log.redact("key 0123abcd, owner-key-text, http://u:pw@h/")).toBe(
      "key [redacted], [redacted], http://u:***@h/",
    );
    expect(writes).toEqual([]);
  });

  it("runs the caller's redaction on every message", () => {
    const { log, writes } = capture({ redact: (text) => text.replace(/:[^:@/]+@/g, ":***@") });
    log.warn("request to http://glenda:PASSWORD123@127.0.0.1:1/v1 failed");
    expect(writes).toEqual([`${T} WARN  olliesrv: request to http://glenda:***@127.0.0.1:1/v1 failed\n`]);
  });

  it("relays another program's lines whatever the threshold, redacted and on one line each", () => {
    const { log, writes } = capture({ settings: parseLogSettings("error", "--log-level"), secrets: ["k3y"] });
    log.relay(`${T} INFO  toolsrv: serving with k3y\n`);
    log.relay("a crash\n  at frame\x1b[0m");
    expect(writes).toEqual([
      `${T} INFO  toolsrv: serving with [redacted]\n`,
      "a crash\\n  at frame\\x1b[0m\n",
    ]);
  });

  it("may have its methods passed around unbound", () => {
    const { log, writes } = capture();
    ["one", "two"].forEach(log.child("sessions").info);
    expect(writes).toHaveLength(2);
  });

  it("refuses a program or category name that could forge a line", () => {
    expect(() => createLogger({ program: "olliesrv: fake" })).toThrow(
      "'olliesrv: fake' is not a log program name (lowercase letters, digits, '_' and '-')",
    );
    expect(() => capture().log.child("audit]\nx")).toThrow("is not a log category name");
    expect(() => capture().log.child("")).toThrow("is not a log category name");
  });

  it("writes to standard error unless told otherwise", () => {
    const writes: string[] = [];
    const write = process.stderr.write;
    process.stderr.write = ((chunk: string) => writes.push(chunk) > 0) as typeof write;
    try {
      createLogger({ program: "toolsrv" }).info("hello");
    } finally {
      process.stderr.write = write;
    }
    expect(writes).toEqual([expect.stringMatching(/^\S+Z INFO {2}toolsrv: hello\n$/)]);
  });
});
