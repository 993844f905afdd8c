import { describe, expect, it } from "vitest";
import { ReplyFormatError } from "../errors.js";
import { parseEvent } from "./parse-event.js";

const PATH = "session/1-a/events";
const at = { seq: 7, time: "2026-12-02T10:00:00.000Z" };
const line = (fields: object) => JSON.stringify(fields);

describe("an events line as a record", () => {
  it("is an agent's event, by the agent's name and the event's type", () => {
    const e = parseEvent(line({ topic: "agent.main.state", ...at, state: "calling: shell" }), PATH);
    expect(e).toEqual({
      kind: "agent",
      agent: "main",
      type: "state",
      topic: "agent.main.state",
      ...at,
      state: "calling: shell",
    });
    const turn = parseEvent(
      line({
        topic: "agent.worker-1.turn",
        ...at,
        outcome: { status: "error", steps: 0, error: "no backend" },
      }),
      PATH,
    );
    if (turn.kind !== "agent" || turn.type !== "turn") throw new Error(`not a turn: ${JSON.stringify(turn)}`);
    expect(turn.agent).toBe("worker-1");
    expect(turn.outcome).toEqual({ status: "error", steps: 0, error: "no backend" });
    const queue = parseEvent(line({ topic: "agent.main.queue", ...at, waiting: 2 }), PATH);
    if (queue.kind !== "agent" || queue.type !== "queue")
      throw new Error(`not a queue: ${JSON.stringify(queue)}`);
    expect(queue.waiting).toBe(2);
  });

  it("is the session's own event, whose fields never pass for its kind or type", () => {
    const fork = parseEvent(
      line({
        topic: "session.fork",
        ...at,
        agent: "main",
        to: "2-b",
        name: "x",
        clean: true,
        kind: "forged",
      }),
      PATH,
    );
    expect(fork).toMatchObject({ kind: "session", type: "fork", agent: "main", to: "2-b", clean: true });
    expect(parseEvent(line({ topic: "session.kill", ...at }), PATH)).toEqual({
      kind: "session",
      type: "kill",
      topic: "session.kill",
      ...at,
    });
  });

  it("says how many events a slow reader lost", () => {
    expect(parseEvent(line({ topic: "events.dropped", time: at.time, count: 12 }), PATH)).toEqual({
      kind: "dropped",
      topic: "events.dropped",
      time: at.time,
      count: 12,
    });
  });

  it("keeps a topic it does not know as it came", () => {
    expect(parseEvent(line({ topic: "agent.main.dream", ...at, sheep: 3 }), PATH)).toEqual({
      kind: "other",
      topic: "agent.main.dream",
      ...at,
      fields: { sheep: 3 },
    });
    expect(parseEvent(line({ topic: "budget.spent", ...at }), PATH)).toMatchObject({ kind: "other" });
  });

  it("refuses what is not an event", () => {
    for (const bad of [
      "not json",
      "[1]",
      line({ seq: 1 }),
      line({ topic: "agent.main.state", state: "idle" }),
    ])
      expect(() => parseEvent(bad, PATH), bad).toThrow(ReplyFormatError);
  });
});
