import { describe, expect, it } from "vitest";
import { ReplyFormatError } from "../errors.js";
import { parseProcesses } from "./processes.js";

const P = "session/1-a/agent/main/proc/idx";

describe("an agent's tool processes (proc/idx)", () => {
  it("reads id, tool, status and start time from each line", () => {
    expect(
      parseProcesses(
        "1\tshell\texited 0\t2026-12-07T20:00:00.000Z\n12\tmcp__fs__read\trunning\t2026-12-07T20:01:02.345Z\n",
        P,
      ),
    ).toEqual([
      { id: 1, tool: "shell", status: "exited 0", started: new Date("2026-12-07T20:00:00.000Z") },
      { id: 12, tool: "mcp__fs__read", status: "running", started: new Date("2026-12-07T20:01:02.345Z") },
    ]);
    expect(parseProcesses("", P)).toEqual([]);
  });

  it("keeps a status with a tab in it whole", () => {
    expect(parseProcesses("3\tshell\trefused: no\tway\t2026-12-07T20:00:00.000Z\n", P)[0]?.status).toBe(
      "refused: no\tway",
    );
  });

  it("refuses a line that is not a process's, naming the file", () => {
    for (const line of [
      "shell\trunning\t2026-12-07T20:00:00.000Z",
      "x\tshell\trunning\tnow",
      "0\tshell\trunning\t2026-12-07T20:00:00.000Z",
      "1\t\trunning\t2026-12-07T20:00:00.000Z",
    ]) {
      expect(() => parseProcesses(`${line}\n`, P)).toThrow(ReplyFormatError);
      expect(() => parseProcesses(`${line}\n`, P)).toThrow(P);
    }
  });
});
