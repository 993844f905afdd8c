import { readFileSync } from "node:fs";
import { defineConfig } from "tsup";

const { version } = JSON.parse(readFileSync("package.json", "utf8"));

export default defineConfig({
  define: { __PACKAGE_VERSION__: JSON.stringify(version) },
  entry: { daemon: "src/daemon.ts", ollie: "src/cli/ollie.ts" },
  format: ["esm"],
  dts: false,
  sourcemap: true,
  clean: true,
  target: "node20",
});
