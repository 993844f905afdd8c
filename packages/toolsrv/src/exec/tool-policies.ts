import { dirname } from "node:path";
import { type SandboxPolicy, withLayer } from "@ollie/sandbox";
import type { CatalogEntry } from "../catalog/tool-catalog.js";
import { NODE_PREFIX } from "./node-prefix.js";

/**
 * The policy each tool runs under: toolsrv's, plus read-and-execute on the tool's own directory and on
 * Node's installation. Built once per tool and policy revision rather than validated and merged again on
 * every call. A policy is never changed in place: a new revision is a new object, and the first look with
 * it drops everything built from the one before, so no call runs under a policy that is no longer in force.
 */
export class ToolPolicies {
  private policy: SandboxPolicy | undefined;
  private readonly built = new Map<string, SandboxPolicy>();

  /** The policy for a call of `entry` under `policy` (the policy in force for this call). */
  for(policy: SandboxPolicy, entry: CatalogEntry): SandboxPolicy {
    if (policy !== this.policy) {
      this.built.clear();
      this.policy = policy;
    }
    const key = `${entry.meta.name}\0${entry.file}`;
    let layered = this.built.get(key);
    if (!layered) {
      layered = withLayer(
        policy,
        { filesystem: { rox: [dirname(entry.file), NODE_PREFIX] } },
        `tool ${entry.meta.name}`,
      );
      this.built.set(key, layered);
    }
    return layered;
  }

  /** How many tools' policies are kept (for tests). */
  get size(): number {
    return this.built.size;
  }
}
