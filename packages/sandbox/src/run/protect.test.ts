import { mkdirSync, realpathSync, symlinkSync, writeFileSync } from "node:fs";
import { dirname, join } from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { bash, type Scratch, scratch } from "../__fixtures__/sandbox-fixture.js";
import { ProtectedPathError } from "../errors.js";
import { ensureLauncher, launcherHome } from "../launcher/ensure-launcher.js";

let s: Scratch;
let keys: string;
let key: string;
beforeAll(async () => {
  s = await scratch();
  keys = join(s.root, "keys");
  key = join(keys, "service.key");
  mkdirSync(keys);
  writeFileSync(key, "the service key\n");
});
afterAll(() => s.cleanup());

/** What running `true` under `filesystem` (over the scratch policy) with `protect` fails with. */
async function refusal(filesystem: object, protect: string[], cwd = s.rw): Promise<ProtectedPathError> {
  const policy = await s.policy({ filesystem });
  const error = await s.run("true", [], { policy, protect, cwd }).then(
    () => undefined,
    (e: unknown) => e,
  );
  expect(error).toBeInstanceOf(ProtectedPathError);
  return error as ProtectedPathError;
}

describe("protected paths", () => {
  it("refuses a policy that grants a protected file's directory, an ancestor of it, or the file itself", async () => {
    const parent = await refusal({ ro: [keys] }, [key]);
    expect(parent).toMatchObject({
      granted: keys,
      list: "filesystem.ro",
      protectedPath: key,
      relation: "holds",
    });
    expect(parent.message).toContain(`filesystem.ro grants '${keys}'`);
    expect(parent.message).toContain(`which holds the protected path '${key}'`);
    expect(await refusal({ rwx: [s.root] }, [key])).toMatchObject({
      granted: s.root,
      list: "filesystem.rwx",
    });
    expect(await refusal({ rox: [key] }, [key])).toMatchObject({ list: "filesystem.rox", relation: "is" });
  });

  it("refuses a grant inside a protected directory", async () => {
    expect(await refusal({ ro: [key] }, [keys])).toMatchObject({
      granted: key,
      protectedPath: keys,
      relation: "lies inside",
    });
  });

  it("allows a policy that grants only siblings, and Landlock keeps the protected file out of reach", async () => {
    const sibling = join(s.root, "keys-not");
    mkdirSync(sibling);
    const policy = await s.policy({ filesystem: { rw: [sibling] } });
    const r = await bash(s, `echo ok > ${sibling}/note && cat ${sibling}/note; cat ${key}`, {
      policy,
      protect: [key],
    });
    expect(r.out).toBe("ok");
    expect(r.err).toContain(`${key}: Permission denied`);
  });

  it("refuses a symlink to an ancestor, and a protected path named through a symlink", async () => {
    const link = join(s.ro, "innocent-looking");
    symlinkSync(s.root, link);
    const viaLink = await refusal({ ro: [link] }, [key]);
    expect(viaLink).toMatchObject({
      granted: link,
      list: "filesystem.ro",
      protectedPath: key,
      relation: "holds",
    });
    expect(viaLink.message).toContain(`'${link}' (really '${realpathSync(s.root)}')`);
    const keyLink = join(s.rw, "keys-link");
    symlinkSync(keys, keyLink);
    expect(await refusal({ ro: [keys] }, [join(keyLink, "service.key")])).toMatchObject({
      relation: "holds",
    });
    // A key not written yet still counts where it will be.
    expect(await refusal({ ro: [keys] }, [join(keyLink, "later.key")])).toMatchObject({ relation: "holds" });
  });

  it("checks the policy as expanded for the command: {CWD} in the protected file's directory is refused", async () => {
    const refused = await refusal({ rw: ["{CWD}"] }, [key], keys);
    expect(refused).toMatchObject({ granted: keys, list: "filesystem.rw", relation: "holds" });
    const policy = await s.policy({ filesystem: { rw: ["{CWD}"] } });
    expect((await s.run("true", [], { policy, protect: [key], cwd: s.rwx })).exitCode).toBe(0);
  });

  it("refuses a policy that grants writing where the launcher is kept, and allows reading it", async () => {
    const kept = dirname((await ensureLauncher()).path);
    const writer = await refusal({ rw: [dirname(launcherHome())] }, []);
    expect(writer).toMatchObject({ list: "filesystem.rw", relation: "holds" });
    expect(writer.protectedPath).toBe(launcherHome());
    expect(await refusal({ rwx: [kept] }, [])).toMatchObject({
      list: "filesystem.rwx",
      relation: "lies inside",
    });
    const reader = await s.policy({ filesystem: { ro: [kept] } });
    expect((await s.run("true", [], { policy: reader })).exitCode).toBe(0);
  });

  it("refuses a policy that grants writing a protectWrites path, and runs one that reads and runs it", async () => {
    const code = join(s.root, "code");
    const tools = join(code, "tools");
    mkdirSync(tools, { recursive: true });
    writeFileSync(join(tools, "hello"), "#!/bin/sh\necho hello\n", { mode: 0o755 });
    const refuse = async (filesystem: object) => {
      const policy = await s.policy({ filesystem });
      return s.run("true", [], { policy, protectWrites: [code] }).then(
        () => undefined,
        (e: unknown) => e,
      );
    };
    expect(await refuse({ rw: [s.root] })).toMatchObject({
      list: "filesystem.rw",
      protectedPath: code,
      relation: "holds",
    });
    expect(await refuse({ rwx: [tools] })).toMatchObject({ list: "filesystem.rwx", relation: "lies inside" });
    const runner = await s.policy({ filesystem: { rox: [tools] } });
    const r = await bash(s, `${join(tools, "hello")}; echo changed > ${join(tools, "hello")}`, {
      policy: runner,
      protectWrites: [code],
    });
    expect(r.out).toBe("hello");
    expect(r.err).toContain("Permission denied");
  });
});
