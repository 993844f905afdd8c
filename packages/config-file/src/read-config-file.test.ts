import { mkdtempSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import { z } from "zod";
import { ConfigError } from "./config-error.js";
import { formatOf, readConfigFile } from "./read-config-file.js";

const dir = mkdtempSync(join(tmpdir(), "config-file-"));
const schema = z.strictObject({ port: z.number().int() });

describe("readConfigFile", () => {
  it("reads YAML and JSON by the file's extension", async () => {
    writeFileSync(join(dir, "a.yaml"), "port: 80\n");
    writeFileSync(join(dir, "a.json"), '{"port": 81}');
    expect(await readConfigFile(schema, join(dir, "a.yaml"))).toEqual({ port: 80 });
    expect(await readConfigFile(schema, join(dir, "a.json"))).toEqual({ port: 81 });
    expect(formatOf("x.JSON")).toBe("json");
    expect(formatOf("x.conf")).toBe("yaml");
  });

  it("says a missing file is missing: undefined", async () => {
    expect(await readConfigFile(schema, join(dir, "none.yaml"))).toBeUndefined();
  });

  it("names the file and the place of a problem", async () => {
    const file = join(dir, "bad.yaml");
    writeFileSync(file, "# a comment\nport: eighty\n");
    await expect(readConfigFile(schema, file)).rejects.toThrow(`${file}:2:7: port: `);
  });

  it("reports a file it cannot read", async () => {
    const error = await readConfigFile(schema, dir).catch((e: unknown) => e);
    expect(error).toBeInstanceOf(ConfigError);
    expect((error as ConfigError).message).toMatch(new RegExp(`^${dir}: cannot read: .*EISDIR`));
  });
});
