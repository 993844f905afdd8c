import { describe, expect, it } from "vitest";
import { parseInvocation } from "./invocation.js";
import { durationSeconds } from "./session-args.js";

const ID = "1796046449450612060-ab0742";

describe("the arguments of ask, sh, rm and prune", () => {
  it("ask: options first, then the prompt whatever it looks like; a session id first names the session", () => {
    expect(parseInvocation("ask", ["what", "does", "-v", "do?"])).toEqual({
      command: "ask",
      session: undefined,
      text: "what does -v do?",
      agent: undefined,
      keep: false,
    });
    expect(parseInvocation("ask", ["--agent", "default", "--keep", "hello", "--keep"])).toEqual({
      command: "ask",
      session: undefined,
      text: "hello --keep",
      agent: "default",
      keep: true,
    });
    expect(parseInvocation("ask", ["--", "--keep", "is", "a", "word"])).toMatchObject({
      text: "--keep is a word",
      keep: false,
    });
    expect(parseInvocation("ask", [ID, "go", "on"])).toMatchObject({ session: ID, text: "go on" });
    // An id alone is the prompt: there is nothing else to ask.
    expect(parseInvocation("ask", [ID])).toMatchObject({ session: undefined, text: ID });
  });

  it("refuses what cannot be: no prompt, options for a session that is there, an unknown option", () => {
    for (const [command, args, problem] of [
      ["ask", [], "ask needs a prompt"],
      ["ask", ["--keep"], "ask needs a prompt"],
      ["ask", ["--keep", ID, "more"], "--agent and --keep are for a new session"],
      ["ask", ["--agent", "coding", ID, "more"], "--agent and --keep are for a new session"],
      ["ask", ["--colour", "x"], "Unknown option '--colour'"],
      ["ask", ["--agent", "../x", "hi"], "'../x' is not a profile name"],
      ["sh", [ID, "extra"], "sh takes at most 1 operand(s)"],
      ["sh", ["--agent", "coding", ID], "--agent is for a new session"],
      ["rm", [], "rm needs a session"],
      ["rm", ["-x", ID], "Unknown option '-x'"],
      ["prune", ["all"], "Unexpected argument 'all'"],
      ["prune", ["--older", "soon"], "'soon' is not a duration"],
      ["prune", ["--older"], "Option '--older <value>' argument missing"],
    ] as const) {
      expect(() => parseInvocation(command, [...args]), `${command} ${args.join(" ")}`).toThrow(problem);
    }
  });

  it("sh, rm and prune", () => {
    expect(parseInvocation("sh", [])).toEqual({ command: "sh", session: undefined, agent: undefined });
    expect(parseInvocation("sh", ["--agent", "default"])).toEqual({
      command: "sh",
      session: undefined,
      agent: "default",
    });
    expect(parseInvocation("rm", [ID, "named"])).toEqual({
      command: "rm",
      sessions: [ID, "named"],
      force: false,
    });
    expect(parseInvocation("rm", ["-f", ID])).toMatchObject({ force: true });
    expect(parseInvocation("rm", ["--force", ID])).toMatchObject({ force: true });
    expect(parseInvocation("prune", [])).toEqual({ command: "prune", olderSeconds: 0, older: undefined });
    expect(parseInvocation("prune", ["--older", "7d"])).toEqual({
      command: "prune",
      olderSeconds: 604_800,
      older: "7d",
    });
  });

  it("reads durations in seconds, minutes, hours, days and weeks", () => {
    expect([
      durationSeconds("45"),
      durationSeconds("45s"),
      durationSeconds("30m"),
      durationSeconds("12h"),
      durationSeconds("7d"),
      durationSeconds("2w"),
      durationSeconds("0"),
    ]).toEqual([45, 45, 1800, 43_200, 604_800, 1_209_600, 0]);
    for (const bad of ["", "7 d", "1.5h", "-1d", "7y", "d"])
      expect(() => durationSeconds(bad), bad).toThrow("is not a duration");
  });
});
