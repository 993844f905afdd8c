import { chmodSync, copyFileSync, mkdirSync, readdirSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { fileURLToPath } from "node:url";

const NINEP_DIST = fileURLToPath(new URL("../../../packages/ninep/dist", import.meta.url));
const PROBE = fileURLToPath(new URL("./fixtures/probe.mjs", import.meta.url));

/**
 * Installs, in olliesrv's config directory, the `probe` tool (9P steps as the agent itself, from inside its
 * sandbox, with the 9P client beside it) and a `prober` profile that loads it.
 */
export function installProbe(config: string): void {
  const tools = join(config, "tools");
  mkdirSync(join(tools, "lib", "ninep"), { recursive: true });
  for (const f of readdirSync(NINEP_DIST).filter((n) => n.endsWith(".js")))
    copyFileSync(join(NINEP_DIST, f), join(tools, "lib", "ninep", f));
  copyFileSync(PROBE, join(tools, "probe"));
  chmodSync(join(tools, "probe"), 0o755);
  mkdirSync(join(config, "agents"), { recursive: true });
  writeFileSync(
    join(config, "agents", "prober.json"),
    JSON.stringify({ prompt: ["echo You probe."], autoLoad: ["probe"] }),
  );
}
