import { chmodSync, existsSync, mkdtempSync, readFileSync, renameSync, rmSync, statSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterEach, describe, expect, it, vi } from "vitest";
import { LogFileError, openLogFile } from "./log-file.js";
import { parseLogSettings } from "./log-settings.js";
import { createLogger } from "./logger.js";

const dirs: string[] = [];
const scratch = () => {
  const dir = mkdtempSync(join(tmpdir(), "ollie-log-"));
  dirs.push(dir);
  return dir;
};
afterEach(() => {
  for (const dir of dirs.splice(0)) rmSync(dir, { recursive: true, force: true });
});

const T = "2026-11-30T21:40:00.123Z";
const now = () => new Date(T);

describe("a log file", () => {
  it("is what a logger writes to when its settings name one: appended, private, its directory made", () => {
    const path = join(scratch(), "logs", "olliesrv.log");
    const first = createLogger({ program: "olliesrv", settings: parseLogSettings(`warn,${path}`, "x"), now });
    first.info("not at warn");
    first.child("audit").warn("refused");
    const second = createLogger({ program: "toolsrv", settings: parseLogSettings(path, "x"), now });
    second.info("serving");
    expect(readFileSync(path, "utf8")).toBe(
      `${T} WARN  olliesrv[audit]: refused\n${T} INFO  toolsrv: serving\n`,
    );
    expect(statSync(path).mode & 0o777).toBe(0o600);
    expect(statSync(join(path, "..")).mode & 0o777).toBe(0o700);
  });

  it("is opened again on SIGHUP, after logrotate moved it away", async () => {
    const dir = scratch();
    const path = join(dir, "ollie.log");
    const handlers = process.listenerCount("SIGHUP");
    const file = openLogFile(path);
    expect(process.listenerCount("SIGHUP")).toBe(handlers + 1);
    try {
      file.write("before\n");
      renameSync(path, `${path}.1`);
      file.write("still the old one\n");
      process.kill(process.pid, "SIGHUP");
      // The signal's handler opens the file again at its path.
      await vi.waitFor(() => expect(existsSync(path)).toBe(true));
      file.write("after\n");
      expect(readFileSync(`${path}.1`, "utf8")).toBe("before\nstill the old one\n");
      expect(readFileSync(path, "utf8")).toBe("after\n");
    } finally {
      file.close();
    }
    expect(process.listenerCount("SIGHUP")).toBe(handlers);
  });

  it("keeps the old file when the new one cannot be opened, and says so once", () => {
    const dir = scratch();
    const path = join(dir, "ollie.log");
    const said: string[] = [];
    const file = openLogFile(path, { reopenOn: null, complain: (l) => said.push(l) });
    try {
      renameSync(path, `${path}.1`);
      chmodSync(dir, 0o500);
      file.reopen();
      file.reopen();
      file.write("kept\n");
      chmodSync(dir, 0o700);
      // Root may write anyway; then the reopen worked and nothing was said.
      if (said.length > 0) {
        expect(said).toHaveLength(1);
        expect(said[0]).toMatch(new RegExp(`^log: cannot reopen ${path}: `));
        expect(readFileSync(`${path}.1`, "utf8")).toBe("kept\n");
      }
    } finally {
      chmodSync(dir, 0o700);
      file.close();
    }
  });

  it("that cannot be opened is an error naming it", () => {
    const path = join(scratch(), "ollie.log");
    openLogFile(path, { reopenOn: null }).close();
    chmodSync(path, 0o000);
    if (process.getuid?.() === 0) return;
    expect(() => openLogFile(path, { reopenOn: null })).toThrow(LogFileError);
    expect(() => openLogFile(path, { reopenOn: null })).toThrow(`cannot open the log file ${path}: EACCES`);
  });
});
