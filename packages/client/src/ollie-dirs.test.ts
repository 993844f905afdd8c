import { homedir } from "node:os";
import { describe, expect, it } from "vitest";
import { defaultAddress, ollieDirs } from "./ollie-dirs.js";

describe("Ollie's directories", () => {
  it("come from the XDG variables and $NAMESPACE", () => {
    const env = {
      HOME: "/home/glenda",
      XDG_CONFIG_HOME: "/cfg",
      XDG_DATA_HOME: "/data",
      XDG_CACHE_HOME: "/cache",
      XDG_STATE_HOME: "/state",
      NAMESPACE: "/tmp/ns.glenda",
    };
    expect(ollieDirs(env)).toEqual({
      config: "/cfg/ollie",
      data: "/data/ollie",
      cache: "/cache/ollie",
      state: "/state/ollie",
      runtime: undefined,
      namespace: "/tmp/ns.glenda",
      ownerKey: "/data/ollie/keys/owner.key",
    });
    expect(defaultAddress(env)).toBe("unix!/tmp/ns.glenda/ollie");
  });

  it("fall back to their places under $HOME, an empty variable as an unset one, and plan9port's namespace", () => {
    const env = { HOME: "/home/glenda", XDG_DATA_HOME: "", USER: "glenda", DISPLAY: ":1.0" };
    expect(ollieDirs(env)).toEqual({
      config: "/home/glenda/.config/ollie",
      data: "/home/glenda/.local/share/ollie",
      cache: "/home/glenda/.cache/ollie",
      state: "/home/glenda/.local/state/ollie",
      runtime: undefined,
      namespace: "/tmp/ns.glenda.:1",
      ownerKey: "/home/glenda/.local/share/ollie/keys/owner.key",
    });
    expect(defaultAddress(env)).toBe("unix!/tmp/ns.glenda.:1/ollie");
  });

  it("use the account's home when HOME is unset", () => {
    expect(ollieDirs({ NAMESPACE: "/ns" }).config).toBe(`${homedir()}/.config/ollie`);
  });
});
