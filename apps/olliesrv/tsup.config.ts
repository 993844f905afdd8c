import { defineConfig } from "tsup";

export default defineConfig({
  entry: { daemon: "src/daemon.ts", ollie: "src/cli/ollie.ts" },
  format: ["esm"],
  dts: false,
  sourcemap: true,
  clean: true,
  target: "node20",
});
