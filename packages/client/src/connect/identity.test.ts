import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { defaultUname } from "@ollie/ninep";
import { afterAll, describe, expect, it } from "vitest";
import { KeyFileError } from "../errors.js";
import { resolveIdentity } from "./identity.js";

const home = mkdtempSync(join(tmpdir(), "ollie-client-identity-"));
afterAll(() => rmSync(home, { recursive: true, force: true }));

/** An environment whose owner key (under $XDG_DATA_HOME) holds `key`, or is missing. */
function envWithOwnerKey(name: string, key?: string): NodeJS.ProcessEnv {
  const data = join(home, name);
  mkdirSync(join(data, "ollie", "keys"), { recursive: true });
  if (key !== undefined) writeFileSync(join(data, "ollie", "keys", "owner.key"), key);
  return { HOME: home, XDG_DATA_HOME: data };
}

describe("who a client attaches as", () => {
  it("is the owner, proven by the key olliesrv keeps, by default", async () => {
    const env = envWithOwnerKey("owner", "0123abcd\n");
    expect(await resolveIdentity({}, env)).toEqual({ uname: defaultUname(env), key: "0123abcd" });
  });

  it("is an agent inside its tools: OLLIE_UNAME proven by OLLIE_KEY, no owner key read", async () => {
    const env = { ...envWithOwnerKey("agent"), OLLIE_UNAME: "1-a.main", OLLIE_KEY: "agent-secret" };
    expect(await resolveIdentity({}, env)).toEqual({ uname: "1-a.main", key: "agent-secret" });
  });

  it("is who the caller names, with the key it gives or the file it points to", async () => {
    const env = {
      ...envWithOwnerKey("named", "owner-key"),
      OLLIE_UNAME: "1-a.main",
      OLLIE_KEY: "agent-secret",
    };
    expect(await resolveIdentity({ key: "given" }, env)).toEqual({ uname: defaultUname(env), key: "given" });
    expect(await resolveIdentity({ uname: "glenda", key: "given" }, env)).toEqual({
      uname: "glenda",
      key: "given",
    });
    const file = join(home, "copied.key");
    writeFileSync(file, "copied\n");
    expect(await resolveIdentity({ keyFile: file }, env)).toEqual({
      uname: defaultUname(env),
      key: "copied",
    });
    // A uname of the caller's own is not the agent's: it is proven with the owner key.
    expect(await resolveIdentity({ uname: "glenda" }, env)).toEqual({ uname: "glenda", key: "owner-key" });
  });

  it("says which key file it could not read, and why", async () => {
    const env = envWithOwnerKey("none");
    const missing = await resolveIdentity({}, env).catch((error: unknown) => error);
    expect(missing).toBeInstanceOf(KeyFileError);
    expect(missing).toMatchObject({ code: "ENOENT", file: join(home, "none", "ollie", "keys", "owner.key") });
    expect((missing as Error).message).toBe(
      `cannot read the owner key ${join(home, "none", "ollie", "keys", "owner.key")} (ENOENT); olliesrv makes it at its first start`,
    );
    const empty = join(home, "empty.key");
    writeFileSync(empty, "\n");
    await expect(resolveIdentity({ keyFile: empty }, env)).rejects.toMatchObject({
      name: "KeyFileError",
      file: empty,
      code: undefined,
      message: `the key file ${empty} is empty`,
    });
  });
});
