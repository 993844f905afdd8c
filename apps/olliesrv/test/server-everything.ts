import { realpathSync } from "node:fs";
import { join } from "node:path";
import { fileURLToPath } from "node:url";

/** server-everything from npm, the MCP server the tests use: its entry point, to run with node. */
export const EVERYTHING = join(
  realpathSync(
    fileURLToPath(new URL("../node_modules/@modelcontextprotocol/server-everything", import.meta.url)),
  ),
  "dist",
  "index.js",
);

/** The package store it is in, which a sandbox must let its process read. */
export const EVERYTHING_STORE = EVERYTHING.slice(
  0,
  EVERYTHING.indexOf("/node_modules/") + "/node_modules".length,
);
