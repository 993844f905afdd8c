import { homedir } from "node:os";
import { describe, expect, it } from "vitest";
import { ollieDirs, xdgDirs } from "./ollie-dirs.js";

describe("Ollie's directories", () => {
  it("are ollie in each XDG base directory the environment names", () => {
    const env = {
      HOME: "/home/glenda",
      XDG_CONFIG_HOME: "/cfg",
      XDG_DATA_HOME: "/data",
      XDG_STATE_HOME: "/state",
      XDG_CACHE_HOME: "/cache",
      XDG_RUNTIME_DIR: "/run/user/1000",
    };
    expect(xdgDirs(env)).toEqual({
      config: "/cfg",
      data: "/data",
      state: "/state",
      cache: "/cache",
      runtime: "/run/user/1000",
    });
    expect(ollieDirs(env)).toEqual({
      config: "/cfg/ollie",
      data: "/data/ollie",
      state: "/state/ollie",
      cache: "/cache/ollie",
      runtime: "/run/user/1000/ollie",
    });
  });

  it("fall back under $HOME, an empty variable as an unset one, and have no runtime directory unless set", () => {
    const env = { HOME: "/home/glenda", XDG_DATA_HOME: "", XDG_RUNTIME_DIR: "" };
    expect(ollieDirs(env)).toEqual({
      config: "/home/glenda/.config/ollie",
      data: "/home/glenda/.local/share/ollie",
      state: "/home/glenda/.local/state/ollie",
      cache: "/home/glenda/.cache/ollie",
      runtime: undefined,
    });
  });

  it("use the account's home when HOME is unset", () => {
    expect(xdgDirs({}).config).toBe(`${homedir()}/.config`);
    expect(ollieDirs({}).cache).toBe(`${homedir()}/.cache/ollie`);
  });
});
