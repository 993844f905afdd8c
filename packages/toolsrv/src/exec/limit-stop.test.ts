import { describe, expect, it } from "vitest";
import { describeOutcome } from "../server/proc-table.js";
import { limitThatStopped } from "./limit-stop.js";
import type { ToolOutcome } from "./run-tool.js";

const memory = { limit: "memory", value: 2 ** 27, text: "its memory limit of 128 MiB" } as const;
const processes = { limit: "processes", value: 40, text: "the 40-process limit" } as const;
const outcome = (o: Partial<ToolOutcome>): ToolOutcome => ({
  exitCode: 0,
  signal: null,
  output: "",
  stderr: "",
  bytes: 0,
  truncated: false,
  timedOut: false,
  cancelled: false,
  durationMs: 1,
  ...o,
});

describe("the limit that stopped a tool", () => {
  it("is the process limit whenever it was reached: its launcher ends the tool then", () => {
    expect(limitThatStopped({ exitCode: null, signal: "SIGKILL", reached: [memory, processes] })).toBe(
      processes,
    );
  });

  it("is a limit whose signal killed the tool, not one a process inside died of", () => {
    expect(limitThatStopped({ exitCode: null, signal: "SIGKILL", reached: [memory] })).toBe(memory);
    expect(limitThatStopped({ exitCode: 137, signal: null, reached: [memory] })).toBeUndefined();
    expect(limitThatStopped({ exitCode: null, signal: "SIGTERM", reached: [memory] })).toBeUndefined();
  });

  it("is what the tool's proc status says", () => {
    expect(describeOutcome(outcome({ exitCode: null, signal: "SIGKILL", reached: [processes] }))).toBe(
      "stopped: it reached the 40-process limit",
    );
    expect(describeOutcome(outcome({ exitCode: 137, reached: [memory] }))).toBe("exited 137");
  });
});
