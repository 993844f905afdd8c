import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll } from "vitest";

/** A home and the environment that points there: HOME, XDG_DATA_HOME and XDG_CONFIG_HOME below it. */
export interface TempHome {
  home: string;
  env: NodeJS.ProcessEnv;
}

/**
 * Makes fresh, empty homes — a user with no login anywhere — removed when the test file is done. Call it
 * at the top of a test file; call what it returns for each home.
 */
export function tempHomes(prefix: string): () => TempHome {
  const made: string[] = [];
  afterAll(() => {
    for (const home of made) rmSync(home, { recursive: true, force: true });
  });
  return () => {
    const home = mkdtempSync(join(tmpdir(), prefix));
    made.push(home);
    return {
      home,
      env: { HOME: home, XDG_DATA_HOME: join(home, "data"), XDG_CONFIG_HOME: join(home, "config") },
    };
  };
}
