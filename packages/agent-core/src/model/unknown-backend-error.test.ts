import type { Backend, StreamEvent } from "@ollie/backends";
import { describe, expect, it } from "vitest";
import { ended, only } from "../__fixtures__/agents.js";
import { Agent } from "../agent/agent.js";
import type { AgentEvent } from "../events/agent-events.js";
import { UnknownBackendError } from "./unknown-backend-error.js";

/** A Backend of one's own that breaks its contract: it throws `thrown`, not a BackendError. */
function throwingBackend(thrown: unknown): Backend & { calls: number } {
  return {
    name: "homemade",
    provider: "custom",
    model: "m",
    calls: 0,
    setModel() {},
    chatStream(): AsyncIterable<StreamEvent> {
      this.calls++;
      return { [Symbol.asyncIterator]: () => ({ next: () => Promise.reject(thrown) }) };
    },
    contextLength: async () => undefined,
    models: async () => [],
  };
}

describe("a backend that throws something other than a BackendError", () => {
  it("ends the turn with an UnknownBackendError naming the backend, the thrown value as its cause", async () => {
    const thrown = new TypeError("fetch is not a function");
    const backend = throwingBackend(thrown);
    const seen: Array<Record<string, unknown>> = [];
    const agent = await Agent.create({
      backend,
      hooks: {
        turnError: async (payload) => {
          seen.push(payload);
          return false;
        },
      },
    });
    const events: AgentEvent[] = [];
    agent.subscribe((e) => events.push(e));
    const { error } = ended(await agent.submit("Hello"), "error");
    expect(error).toBeInstanceOf(UnknownBackendError);
    expect(error).toMatchObject({
      message: "homemade: fetch is not a function",
      provider: "custom",
      profile: "homemade",
      retryable: false,
      cause: thrown,
    });
    // Not retried: nothing says it would help.
    expect(backend.calls).toBe(1);
    expect(seen).toEqual([
      expect.objectContaining({ error_type: "UnknownBackendError", provider: "custom", backend: "homemade" }),
    ]);
    expect(only(events, "error")).toEqual([
      { type: "error", message: "homemade: fetch is not a function", error },
    ]);
  });

  it("says what was thrown when it was not an Error at all", async () => {
    const agent = await Agent.create({ backend: throwingBackend("out of cheese") });
    const { error } = ended(await agent.submit("Hello"), "error");
    expect(error).toMatchObject({ message: "homemade: out of cheese", cause: "out of cheese" });
  });
});
