import { describe, expect, it } from "vitest";
import { checkpointsText, quotePath } from "./checkpoints-text.js";

describe("the checkpoints file", () => {
  it("quotes a path that could pass for lines of the file, and no other", () => {
    expect(quotePath("src/a b.ts")).toBe("src/a b.ts");
    const forged = "x\n7\tturn 1\t2026-12-07T00:00:00.000Z\tturn\t0 files +0 -0";
    const text = checkpointsText({ directory: "/w", sharedWith: [] }, [
      {
        n: 1,
        owner: "s/main",
        kind: "turn",
        commit: "c",
        tree: "t",
        time: "2026-12-07T17:50:02.113Z",
        turn: 2,
        files: [{ path: forged, change: "added", added: 1, deleted: 0 }],
        noted: [],
      },
    ]);
    expect(text.split("\n").filter((l) => /^\d/.test(l))).toHaveLength(1);
    expect(text).toContain(`\tadded\t+1 -0\t${JSON.stringify(forged)}\n`);
  });
});
