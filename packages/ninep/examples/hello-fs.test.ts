import { fileURLToPath } from "node:url";
import { execa } from "execa";
import { expect, it } from "vitest";

it("the README's FileServer example runs and prints what it promises", async () => {
  const example = fileURLToPath(new URL("./hello-fs.ts", import.meta.url));
  const { stdout } = await execa(process.execPath, ["--import", "tsx", example]);
  expect(stdout).toBe("hello count\nhello, world\ncount: 1");
});
