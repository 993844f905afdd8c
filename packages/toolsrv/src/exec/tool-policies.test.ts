import { resolvePolicy, withLayer } from "@ollie/sandbox";
import { describe, expect, it } from "vitest";
import type { CatalogEntry } from "../catalog/tool-catalog.js";
import { NODE_PREFIX } from "./node-prefix.js";
import { ToolPolicies } from "./tool-policies.js";

const entry = (name: string, file: string): CatalogEntry => ({
  file,
  meta: {
    name,
    description: `${name} for tests.`,
    parameters: { type: "object", properties: {} },
    parallelRead: true,
    tier: "warm",
    timeoutMs: 1000,
  },
});
const base = await resolvePolicy({ env: { HOME: "/nonexistent", XDG_CONFIG_HOME: "/nonexistent" } });

describe("each tool's policy", () => {
  it("adds read-and-execute on the tool's directory and Node's installation, once per tool", () => {
    const policies = new ToolPolicies();
    const grep = entry("grep", "/opt/tools/grep");
    const first = policies.for(base, grep);
    expect(first.filesystem.rox).toEqual(expect.arrayContaining(["/opt/tools", NODE_PREFIX]));
    expect(first.sources.at(-1)).toBe("tool grep");
    expect(policies.for(base, grep)).toBe(first);
    expect(policies.for(base, entry("grep", "/elsewhere/grep")).filesystem.rox).toContain("/elsewhere");
    expect(policies.size).toBe(2);
  });

  it("builds them again for a new policy revision, and drops those built for the old one", () => {
    const policies = new ToolPolicies();
    const grep = entry("grep", "/opt/tools/grep");
    const before = policies.for(base, grep);
    policies.for(base, entry("find", "/opt/tools/find"));
    const revised = withLayer(base, { filesystem: { ro: ["/srv/data"] } }, "a new revision");
    const after = policies.for(revised, grep);
    expect(after).not.toBe(before);
    expect(after.filesystem.ro).toContain("/srv/data");
    expect(before.filesystem.ro).not.toContain("/srv/data");
    expect(policies.size).toBe(1);
    // Going back is one more revision: nothing of the one in between is kept.
    expect(policies.for(base, grep).filesystem.ro).not.toContain("/srv/data");
  });
});
