import { mkdirSync, writeFileSync } from "node:fs";
import { join } from "node:path";

/**
 * Sets up, in olliesrv's configuration directory `config`, what the bypass tests ask for: the operation
 * `touch_marker` (approval required), which touches a marker file outside every sandbox, and the profile
 * `asker`, whose agent has `bypass_request` and the tools `more` names. Returns the marker's path.
 */
export function askerFixture(config: string, more: readonly string[] = [], description?: string): string {
  const marker = join(config, "..", "..", "marker.txt");
  writeFileSync(
    join(config, "bypass.yaml"),
    `operations:\n  - name: touch_marker\n    argv: [touch, ${marker}]\n    timeout: 30\n`,
  );
  mkdirSync(join(config, "agents"), { recursive: true });
  writeFileSync(
    join(config, "agents", "asker.json"),
    JSON.stringify({
      ...(description !== undefined && { description }),
      prompt: ["echo You ask."],
      autoLoad: ["bypass_request", ...more],
    }),
  );
  return marker;
}
