import { expandPolicy, type LimitEnforcement, type SandboxPolicy } from "@ollie/sandbox";
import { NODE_PREFIX } from "../exec/node-prefix.js";
import type { AgentSandbox } from "../protocol/agent-sandbox.js";
import type { AgentTools } from "./agent-tools.js";

/**
 * The effective sandbox of an agent's tool calls: toolsrv's policy with its templates (`{CWD}`, `{TMPDIR}`,
 * `{HOME}`…) expanded for the directory and environment of the agent's last call — before its first call,
 * as written.
 */
export function agentSandbox(
  uname: string,
  agent: AgentTools | undefined,
  base: {
    policy: SandboxPolicy;
    protect: readonly string[];
    protectWrites: readonly string[];
    limits: LimitEnforcement[];
  },
): AgentSandbox {
  const place = agent?.lastCall;
  let policy = base.policy;
  let error: string | undefined;
  if (place) {
    try {
      policy = expandPolicy(policy, { cwd: place.cwd, env: place.env });
    } catch (e) {
      error = (e as Error).message;
    }
  }
  return {
    agent: uname,
    expandedFor: place ? { cwd: place.cwd, at: place.at.toISOString() } : null,
    ...(error !== undefined && { error }),
    bestEffort: policy.bestEffort,
    ignoreMissing: policy.ignoreMissing,
    filesystem: policy.filesystem,
    network: policy.network,
    eachTool: { rox: ["(the tool's own directory)", NODE_PREFIX] },
    protect: base.protect,
    protectWrites: base.protectWrites,
    limits: base.limits,
    userNamespaces: policy.userNamespaces,
    sources: base.policy.sources,
  };
}
