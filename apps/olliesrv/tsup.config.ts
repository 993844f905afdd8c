import { readFileSync } from "node:fs";
import { defineConfig } from "tsup";

const { version } = JSON.parse(readFileSync("package.json", "utf8"));

export default defineConfig([
  {
    define: { __PACKAGE_VERSION__: JSON.stringify(version) },
    entry: { daemon: "src/daemon.ts", ollie: "src/cli/ollie.ts" },
    format: ["esm"],
    dts: false,
    sourcemap: true,
    clean: true,
    target: "node20",
  },
  {
    // ollie web's page script and style, for browsers: one small module, no dependencies.
    entry: { app: "src/web/browser/page-script.ts", "app-style": "src/web/browser/app.css" },
    outDir: "dist/web",
    format: ["esm"],
    platform: "browser",
    target: "es2022",
    minify: true,
    dts: false,
    sourcemap: false,
    clean: true,
    tsconfig: "src/web/browser/tsconfig.json",
  },
]);
