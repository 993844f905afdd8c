import { describe, expect, it } from "vitest";
import { parseInvocation } from "./invocation.js";
import { runExitStatus } from "./run-command.js";

const run = (...args: string[]) => parseInvocation("run", args);

describe("ollie run's arguments", () => {
  it("make a new session in this directory with the coding profile, approvals denied, by default", () => {
    expect(run("fix", "the", "tests")).toEqual({
      command: "run",
      prompt: "fix the tests",
      json: false,
      session: undefined,
      spec: { agent: "coding", cwd: process.cwd() },
      keep: false,
      maxTurns: undefined,
      maxCostUsd: undefined,
      approve: "deny",
    });
  });

  it("take the limits, the output, another profile, and the prompt from standard input with -", () => {
    expect(
      run(
        "--json",
        "--agent",
        "default",
        "--model",
        "big",
        "--max-turns",
        "3",
        "--max-cost",
        "0.25",
        "--approve",
        "fail",
        "--keep",
        "-",
      ),
    ).toMatchObject({
      prompt: undefined,
      json: true,
      spec: { agent: "default", model: "big", cwd: process.cwd() },
      keep: true,
      maxTurns: 3,
      maxCostUsd: 0.25,
      approve: "fail",
    });
    expect(run("--max-cost", ".5", "go")).toMatchObject({ maxCostUsd: 0.5 });
    expect(run("--session", "nightly", "go", "on")).toMatchObject({ session: "nightly", prompt: "go on" });
    // A - among words is a word of the prompt.
    expect(run("a", "-", "b")).toMatchObject({ prompt: "a - b" });
  });

  it("refuse mistakes, each with a line saying what is wrong", () => {
    for (const [args, problem] of [
      [[], "run needs a prompt (or -, to read it from standard input)"],
      [["--json"], "run needs a prompt"],
      [["--max-turns", "0", "go"], "--max-turns takes a whole number of rounds from 1 to 10000, not '0'"],
      [["--max-turns", "2.5", "go"], "--max-turns takes a whole number of rounds from 1 to 10000, not '2.5'"],
      [
        ["--max-cost", "$1", "go"],
        "--max-cost takes an amount of US dollars above 0, such as 0.50, not '$1'",
      ],
      [["--max-cost=-1", "go"], "--max-cost takes an amount of US dollars above 0, such as 0.50, not '-1'"],
      [["--approve", "ask", "go"], "--approve takes deny or fail, not 'ask'"],
      [
        ["--session", "s", "--agent", "coding", "go"],
        "--session continues a session as it is: --agent is for a new one",
      ],
      [["--session", "", "go"], "--session needs a session's id or name"],
      [["--colour", "go"], "Unknown option '--colour'"],
    ] as const) {
      expect(() => run(...args), args.join(" ")).toThrow(problem);
    }
  });
});

describe("ollie run's exit status", () => {
  it("is ask's for the turn's status, and its own for the run's limits", () => {
    const statuses = (
      ["done", "handled", "error", "maxsteps", "blocked", "maxcost", "approval", "interrupted"] as const
    ).map(runExitStatus);
    expect(statuses).toEqual([0, 0, 1, 3, 4, 5, 6, 130]);
  });
});
