import { describe, expect, it } from "vitest";
import { askExitStatus } from "./ask-command.js";

describe("ollie ask's exit status", () => {
  it("says how the turn ended", () => {
    const statuses = ["done", "handled", "error: mock 401", "maxsteps", "blocked", "interrupted", ""].map(
      askExitStatus,
    );
    expect(statuses).toEqual([0, 0, 1, 3, 4, 130, 1]);
  });
});
