import { readFileSync } from "node:fs";
import { defineConfig } from "tsup";

const { version } = JSON.parse(readFileSync("package.json", "utf8"));

export default defineConfig({
  define: { __PACKAGE_VERSION__: JSON.stringify(version) },
  entry: ["src/index.ts", "src/process.ts", "src/testing.ts", "src/cli/main.ts"],
  format: ["esm"],
  dts: { entry: ["src/index.ts", "src/process.ts", "src/testing.ts"] },
  sourcemap: true,
  clean: true,
  target: "node20",
});
