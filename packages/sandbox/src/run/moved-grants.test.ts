import { mkdirSync, renameSync, symlinkSync } from "node:fs";
import { join } from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { type Scratch, scratch } from "../__fixtures__/sandbox-fixture.js";

/**
 * A grant is made by path, and the rule holds the file the path led to when the command started. Whoever may
 * write where a granted path lies can make it lead elsewhere: a parent agent, the directory above a child
 * session's; a command, a directory inside its own writable one that a nested grant names. Neither may carry
 * a grant to what the command could not otherwise reach.
 */
let s: Scratch;
beforeAll(async () => {
  s = await scratch();
});
afterAll(() => s.cleanup());

const readSecret = ["-c", "cat secret.txt 2>&1 || cat */secret.txt 2>&1; true"];

describe("a working directory swapped for a link", () => {
  it("is not granted where the link leads: the command is refused, saying why", async () => {
    // Outside every other grant: only the working directory's own rule stands in the way.
    const parent = join(s.root, "parent");
    const child = join(parent, "child");
    mkdirSync(child, { recursive: true });
    const policy = await s.policy({ filesystem: { rw: ["{CWD}"] } });
    const before = await s.run("/bin/sh", ["-c", "echo written > mine.txt && cat mine.txt"], {
      policy,
      cwd: child,
    });
    expect(before.stdout.toString()).toBe("written\n");
    // What a parent that may write `parent` does between the child's calls.
    renameSync(child, join(parent, "child.old"));
    symlinkSync(s.outside, child);
    const after = await s.run("/bin/sh", readSecret, { policy, cwd: child });
    expect(after.exitCode).toBe(125);
    expect(after.stdout.toString()).not.toContain("secret");
    expect(after.launcherError).toBe(
      `cannot grant ${child}: it goes through a symbolic link, which a command that may write there could have made to move the grant; grant its real path`,
    );
  });

  it("is refused when a directory above it was swapped, too", async () => {
    const parent = join(s.root, "upper");
    mkdirSync(join(s.outside, "nested"), { recursive: true });
    symlinkSync(s.outside, parent);
    const policy = await s.policy({ filesystem: { rw: ["{CWD}"] } });
    const r = await s.run("/bin/sh", readSecret, { policy, cwd: join(parent, "nested") });
    expect(r.exitCode).toBe(125);
    expect(r.launcherError).toMatch(/goes through a symbolic link/);
  });
});

describe("a grant beneath a writable one", () => {
  it("follows no link the command may have made beneath the writable grant", async () => {
    const work = join(s.rw, "work");
    mkdirSync(join(work, "docs"), { recursive: true });
    const policy = await s.policy({ filesystem: { rw: ["{CWD}"], ro: ["{CWD}/docs"] } });
    expect((await s.run("true", [], { policy, cwd: work })).exitCode).toBe(0);
    renameSync(join(work, "docs"), join(work, "docs.old"));
    symlinkSync(s.outside, join(work, "docs"));
    const r = await s.run("/bin/cat", [join(work, "docs", "secret.txt")], { policy, cwd: work });
    expect(r.exitCode).toBe(125);
    expect(r.stdout.toString()).toBe("");
    expect(r.launcherError).toMatch(`cannot grant ${join(work, "docs")}: it goes through a symbolic link`);
  });

  it("still grants a path that is no link, and a missing one is skipped when the policy says so", async () => {
    const work = join(s.rw, "plain");
    mkdirSync(join(work, "docs"), { recursive: true });
    const policy = await s.policy({ filesystem: { rw: ["{CWD}"], ro: ["{CWD}/docs", "{CWD}/missing"] } });
    const r = await s.run("/bin/ls", ["docs"], { policy, cwd: work });
    expect(r.exitCode).toBe(0);
  });
});
