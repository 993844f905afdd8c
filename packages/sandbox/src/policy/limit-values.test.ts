import { describe, expect, it } from "vitest";
import {
  formatDuration,
  formatSize,
  memoryBytes,
  parseDuration,
  parseShare,
  parseSize,
} from "./limit-values.js";

describe("limit values", () => {
  it("read sizes in binary units, with or without 'iB', or as bytes", () => {
    expect(["512MiB", "512M", "512 m", "0.5GiB", 536870912].map(parseSize)).toEqual(
      Array(4)
        .fill(512 * 2 ** 20)
        .concat(536870912),
    );
    expect(["2GB", "-1", "1.5", 0, 1.5, "lots"].map(parseSize)).toEqual(Array(6).fill(undefined));
    expect(parseSize("1.5")).toBeUndefined();
    expect(parseSize("3B")).toBe(3);
  });

  it("read shares of the RAM, and give them in whole pages", () => {
    expect(["25%", "100%", "0.5 %"].map(parseShare)).toEqual([0.25, 1, 0.005]);
    expect(["0%", "101%", "25"].map(parseShare)).toEqual([undefined, undefined, undefined]);
    expect(memoryBytes({ share: 0.25 }, 10_000_000)).toBe(2_498_560);
    expect(memoryBytes({ bytes: 1000 }, 10_000_000)).toBe(4096);
  });

  it("read durations in seconds, minutes or hours, rounded up to whole seconds", () => {
    expect([90, "90s", "1.5m", "1h", 0.2].map(parseDuration)).toEqual([90, 90, 90, 3600, 1]);
    expect(["1d", 0, "-5", "soon"].map(parseDuration)).toEqual(Array(4).fill(undefined));
  });

  it("say sizes and durations as a person would", () => {
    expect([300, 2 ** 20, 1.5 * 2 ** 30, 64 * 2 ** 20].map(formatSize)).toEqual([
      "300 B",
      "1 MiB",
      "1.5 GiB",
      "64 MiB",
    ]);
    expect([90, 600, 3600].map(formatDuration)).toEqual(["90 s", "10 min", "1 h"]);
  });
});
