import { expandPolicy, type LimitEnforcement, type SandboxPolicy } from "@ollie/sandbox";
import { NODE_PREFIX } from "../exec/node-prefix.js";
import type { AgentTools } from "./agent-tools.js";

/** What an agent's `sandbox` file says: the policy its tools run under, as it applied to its last call. */
export interface AgentSandbox {
  agent: string;
  /** The directory and time of the call the templates were expanded for; null before its first call. */
  expandedFor: { cwd: string; at: string } | null;
  /** Why the templates could not be expanded (the call would have failed the same way). */
  error?: string;
  bestEffort: boolean;
  ignoreMissing: boolean;
  filesystem: SandboxPolicy["filesystem"];
  network: SandboxPolicy["network"];
  /** What each tool gets on top: read-and-execute on its own directory and on Node's installation. */
  eachTool: { rox: string[] };
  /** Paths no call may reach: a call whose policy would grant one does not run. */
  protect: readonly string[];
  /** Paths no call may write: a call whose policy would grant writing one does not run. */
  protectWrites: readonly string[];
  /**
   * The resource limits and how the kernel enforces each here: processes and memory for all the agent's
   * tool processes together (`per: "group"`) where toolsrv may make cgroups, file size and CPU time per
   * process.
   */
  limits: LimitEnforcement[];
  /** Whether its tools may create user namespaces. */
  userNamespaces: boolean;
  /** The layers the policy was built from, in order. */
  sources: string[];
}

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
