import { describe, expect, it } from "vitest";
import { BypassBroker } from "./bypass-broker.js";
import type { BypassPolicy } from "./bypass-policy.js";

const policy: BypassPolicy = {
  operations: [
    { name: "say", argv: ["echo", "said"], approval: "required", timeout: 10 },
    { name: "quiet", argv: ["true"], approval: "none", timeout: 10 },
  ],
};

describe("BypassBroker", () => {
  it("takes the operation's own command when a request gives none, and lists it as pending", async () => {
    const broker = new BypassBroker(policy);
    const changed = broker.pending.changed();
    const id = broker.request("s.main", { operation: "say", cwd: "/", reason: "to\tsay\nit" });
    await changed;
    const r = broker.get(id)!;
    expect(r.spec.argv).toEqual(["echo", "said"]);
    expect(r.decision.get()).toBe("pending");
    expect(broker.pending.get()).toBe(`${id}\ts.main\tsay\techo said\tto\\tsay\\nit\n`);
    expect(broker.pendingText()).toBe(broker.pending.get());
  });

  it("records who decided and why, and empties the pending list", async () => {
    const broker = new BypassBroker(policy);
    const denied = broker.request("s.main", { operation: "say", cwd: "/" });
    const approved = broker.request("s.main", { operation: "say", argv: ["echo", "said", "more"], cwd: "/" });
    broker.decide(denied, "deny", "glenda", "  not\nnow ");
    expect(broker.get(denied)!.decision.get()).toBe("denied by glenda: not\\nnow");
    expect(broker.get(denied)!.status.get()).toBe("denied by glenda: not\\nnow");
    expect(broker.pending.get()).toMatch(new RegExp(`^${approved}\\t`));
    broker.decide(approved, "approve", "glenda");
    expect(broker.get(approved)!.decision.get()).toBe("approved by glenda");
    expect(broker.pending.get()).toBe("");
    const status = broker.get(approved)!.status;
    while (status.get() === "pending" || status.get() === "running") await status.changed();
    expect(status.get()).toBe("exited 0");
    expect(() => broker.decide(approved, "deny", "glenda")).toThrow(/not pending: exited 0/);
  });

  it("decides at once what the policy decides: no such operation, another command, no approval needed", () => {
    const broker = new BypassBroker(policy);
    const unknown = broker.request("s.main", { operation: "nope", cwd: "/" });
    const other = broker.request("s.main", { operation: "say", argv: ["rm", "-rf", "/"], cwd: "/" });
    const free = broker.request("s.main", { operation: "quiet", cwd: "/" });
    expect(broker.get(unknown)!.decision.get()).toBe("denied: the bypass policy has no operation nope");
    expect(broker.get(other)!.decision.get()).toBe("denied: the bypass policy does not allow this command");
    expect(broker.get(free)!.decision.get()).toBe("allowed by the policy");
    expect(broker.pending.get()).toBe("");
    expect(broker.operations()).toBe("say\trequired\t10\techo said\nquiet\tnone\t10\ttrue\n");
  });
});
