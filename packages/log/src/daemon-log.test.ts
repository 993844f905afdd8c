import { mkdtempSync, readFileSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, describe, expect, it } from "vitest";
import { daemonLogSettings, openDaemonLog } from "./daemon-log.js";
import { LogFileError } from "./log-file.js";
import { thresholdFor } from "./log-settings.js";

const dir = mkdtempSync(join(tmpdir(), "ollie-daemon-log-"));
afterAll(() => rmSync(dir, { recursive: true, force: true }));

const T = "2026-11-30T21:40:00.123Z";
const now = () => new Date(T);

describe("a daemon's log settings", () => {
  it("come from --log-level, else $OLLIE_LOG, with 9p=trace for -D", () => {
    const env = { OLLIE_LOG: "debug", HOME: "/home/glenda" };
    expect(daemonLogSettings({}, env).level).toBe("debug");
    const flagged = daemonLogSettings({ logLevel: "warn,audit=info,~/ollie.log", trace9p: true }, env);
    expect([flagged.level, thresholdFor(flagged, "audit"), thresholdFor(flagged, "9p")]).toEqual([
      "warn",
      "info",
      "trace",
    ]);
    expect(flagged.file).toBe("/home/glenda/ollie.log");
    expect(thresholdFor(daemonLogSettings({ trace9p: false }, {}), "9p")).toBe("info");
  });

  it("throw a LogSettingsError naming the source at fault", () => {
    expect(() => daemonLogSettings({ logLevel: "loud" }, {})).toThrow("--log-level: 'loud' is not a level");
  });
});

describe("a daemon's log", () => {
  it("goes to the file its settings name, and says so once", () => {
    const path = join(dir, "logs", "olliesrv.log");
    const notices: string[] = [];
    const log = openDaemonLog({
      program: "olliesrv",
      settings: daemonLogSettings({ logLevel: `warn,${path}` }, {}),
      secrets: ["sk-secret"],
      now,
      notice: (line) => notices.push(line),
    });
    log.info("not at warn");
    log.child("audit").warn("refused key sk-secret");
    expect(notices).toEqual([`olliesrv: logging to ${path}\n`]);
    expect(readFileSync(path, "utf8")).toBe(`${T} WARN  olliesrv[audit]: refused key [redacted]\n`);
  });

  it("says nothing when it goes to stderr", () => {
    const notices: string[] = [];
    openDaemonLog({
      program: "toolsrv",
      settings: daemonLogSettings({}, {}),
      notice: (l) => notices.push(l),
    });
    expect(notices).toEqual([]);
  });

  it("throws a LogFileError, and says nothing, when the file cannot be opened", () => {
    const notices: string[] = [];
    const open = () =>
      openDaemonLog({
        program: "toolsrv",
        settings: daemonLogSettings({ logLevel: "/dev/null/toolsrv.log" }, {}),
        notice: (l) => notices.push(l),
      });
    expect(open).toThrow(LogFileError);
    expect(notices).toEqual([]);
  });
});
