import { describe, expect, it } from "vitest";
import { parseCommandLine } from "./command-line.js";

const serve = (argv: string[]) => {
  const line = parseCommandLine(argv, {});
  if (line.kind !== "serve") throw new Error(`not a serve: ${line.kind}`);
  return line.options;
};

describe("olliesrv's command line", () => {
  it("stops when idle only when asked, after the duration given", () => {
    expect(serve([]).idleExitMs).toBe(0);
    expect(serve(["--idle-exit", "15m"]).idleExitMs).toBe(900_000);
    expect(serve(["--idle-exit", "0"]).idleExitMs).toBe(0);
    expect(() => serve(["--idle-exit", "later"])).toThrow(
      "--idle-exit takes a duration such as 90s, 15m or 1h (or 0: never), not 'later'",
    );
  });

  it("says ready on a descriptor of its own, never on standard input, output or error", () => {
    expect(serve([]).readyFd).toBeUndefined();
    expect(serve(["--ready-fd", "3"]).readyFd).toBe(3);
    expect(() => serve(["--ready-fd", "2"])).toThrow(
      "--ready-fd takes a descriptor above 2 (not standard input, output or error), not 2",
    );
    expect(() => serve(["--ready-fd", "x"])).toThrow("--ready-fd takes a whole number, not 'x'");
  });
});
