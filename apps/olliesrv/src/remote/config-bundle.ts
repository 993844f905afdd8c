import { existsSync } from "node:fs";
import { join, relative } from "node:path";
import { type Bundle, hashedBundle, walk } from "./bundle.js";

/** What of the user's configuration a remote toolsrv runs with: their tools and sandbox policies. */
const SENT = ["tools", "sandbox.yaml", "sandbox"];

/**
 * The user's tools directory and sandbox policies (`sandbox.yaml`, `sandbox/`) from `configDir`, as a bundle
 * laid out as a configuration directory (`ollie/tools/…`), for a remote toolsrv's XDG_CONFIG_HOME. Policy
 * templates ({HOME}, {CWD}, …) are expanded there, so they name the host's paths.
 */
export async function configBundle(configDir: string): Promise<Bundle> {
  const files: { path: string; source: string }[] = [];
  for (const name of SENT) {
    const source = join(configDir, name);
    if (!existsSync(source)) continue;
    const found = name.endsWith(".yaml") ? [source] : await walk(source, () => false);
    for (const file of found) files.push({ path: join("ollie", relative(configDir, file)), source: file });
  }
  return hashedBundle(files, { sent: SENT });
}
