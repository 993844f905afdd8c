import type { LimitEnforcement, SandboxPolicy } from "@ollie/sandbox";

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
