import { rmSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { afterEach, describe, expect, it } from "vitest";
import { Scratch, write } from "./__fixtures__/trees.js";
import { CheckpointsUnavailable } from "./errors.js";
import { ShadowRepo } from "./shadow-repo.js";

const scratch = new Scratch();
const path = process.env.PATH;
afterEach(() => {
  process.env.PATH = path;
  scratch.removeAll();
});

async function unavailable(promise: Promise<unknown>): Promise<CheckpointsUnavailable> {
  const error = await promise.then(
    () => undefined,
    (e: unknown) => e,
  );
  expect(error).toBeInstanceOf(CheckpointsUnavailable);
  return error as CheckpointsUnavailable;
}

describe("when checkpoints cannot be kept", () => {
  it("says git is missing", async () => {
    process.env.PATH = scratch.dir("ckpt-empty-path-");
    const error = await unavailable(
      ShadowRepo.open({ dataDir: scratch.dir("ckpt-data-"), directory: scratch.dir("ckpt-dir-") }),
    );
    expect(error.reason).toBe("git is not installed (no `git` on PATH)");
  });

  it("says the directory is missing or not one", async () => {
    const dataDir = scratch.dir("ckpt-data-");
    const missing = join(scratch.dir("ckpt-dir-"), "missing");
    expect((await unavailable(ShadowRepo.open({ dataDir, directory: missing }))).message).toContain(missing);
    const file = join(scratch.dir("ckpt-dir-"), "file");
    writeFileSync(file, "");
    expect((await unavailable(ShadowRepo.open({ dataDir, directory: file }))).reason).toBe(
      "it is not a directory",
    );
  });

  it("says the directory went away after it was opened", async () => {
    const directory = scratch.dir("ckpt-dir-");
    write(directory, { "a.txt": "a\n" });
    const repo = await ShadowRepo.open({ dataDir: scratch.dir("ckpt-data-"), directory });
    await repo.record("s/main");
    rmSync(directory, { recursive: true });
    expect((await unavailable(repo.record("s/main"))).reason).toBe("the directory does not exist (any more)");
  });

  it("refuses a shadow repository that records another directory", async () => {
    const dataDir = scratch.dir("ckpt-data-");
    const directory = scratch.dir("ckpt-dir-");
    const repo = await ShadowRepo.open({ dataDir, directory });
    writeFileSync(join(repo.gitDir, "directory"), "/somewhere/else\n");
    expect((await unavailable(ShadowRepo.open({ dataDir, directory }))).reason).toContain(
      "records /somewhere/else",
    );
  });
});
