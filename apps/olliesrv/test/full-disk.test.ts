import { readdirSync, rmSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { execa } from "execa";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { type Ollie, startOllie } from "./harness.js";

/**
 * A full disk under the sessions directory (a 256 KiB tmpfs mounted over it; root only, as in CI and
 * containers): a save that fails says so and the next one tries again, kill works, and SIGTERM exits
 * saying what could not be saved.
 */

const asRoot = process.getuid?.() === 0;
let o: Ollie;
let dir: string;

/** Fills the tmpfs to the last byte. */
function fill(): void {
  for (let i = 0; ; i++) {
    try {
      writeFileSync(join(dir, `filler-${i}`), Buffer.alloc(16 * 1024));
    } catch {
      try {
        writeFileSync(join(dir, `filler-${i}-tail`), Buffer.alloc(512));
      } catch {
        return;
      }
    }
  }
}

const free = () => {
  for (const f of readdirSync(dir)) if (f.startsWith("filler-")) rmSync(join(dir, f));
};

beforeAll(async () => {
  if (!asRoot) return;
  o = await startOllie("olliesrv-full-disk-");
  dir = join(o.root, "data", "ollie", "sessions");
  await execa("mount", ["-t", "tmpfs", "-o", "size=256k", "tmpfs", dir]);
});
afterAll(async () => {
  if (!asRoot) return;
  await o.stop().catch(() => {});
  await execa("umount", [dir], { reject: false });
  await o.remove();
});

describe.runIf(asRoot)("a full disk", () => {
  it("fails a save with the reason, and the next save once there is room succeeds", async () => {
    const id = await o.create(`agent=coding cwd=${o.work} name=first`);
    fill();
    await expect(o.fsys.writeFile(`session/${id}/ctl`, "rename second\n")).rejects.toThrow(
      /ENOSPC|no space/i,
    );
    await expect(o.create(`agent=coding cwd=${o.work} name=never`)).rejects.toThrow(/ENOSPC|no space/i);
    expect(await o.read("session/idx")).not.toContain("never");
    free();
    await o.fsys.writeFile(`session/${id}/ctl`, "rename third\n");
    expect(readdirSync(dir)).toContain(`${id}.json`);
    expect(await o.read("session/idx")).toContain(`${id}\tthird\t`);
  });

  it("does not stop a session from being killed", async () => {
    const id = await o.create(`agent=coding cwd=${o.work}`);
    fill();
    await o.fsys.writeFile(`session/${id}/ctl`, "kill\n");
    expect(await o.read("session/idx")).not.toContain(id);
    expect(readdirSync(dir)).not.toContain(`${id}.json`);
    free();
  });

  it("lets SIGTERM exit, logging each session it could not save and exiting 1", async () => {
    const id = await o.create(`agent=coding cwd=${o.work}`);
    fill();
    o.child.kill("SIGTERM");
    const result = await o.child;
    expect(result.exitCode).toBe(1);
    expect(o.log()).toMatch(new RegExp(`could not save session ${id}: .*(ENOSPC|no space)`, "i"));
    free();
  });
});
