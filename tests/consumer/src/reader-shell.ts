import { mkdirSync } from "node:fs";
import { join } from "node:path";
import { type ConsumerProject, consumerEnv } from "./consumer-project.js";

/**
 * A reader's shell in the consumer project: directories of its own under `name` (so that test files running at
 * once share no namespace), and a PATH that finds the installed binaries, as the READMEs' `npm install` and
 * `export PATH=$PWD/node_modules/.bin:$PATH` make it.
 */
export function readerShell(
  project: ConsumerProject,
  name: string,
): { cwd: string; env: Record<string, string> } {
  const cwd = join(project.dir, name);
  mkdirSync(cwd, { recursive: true });
  const env = consumerEnv(cwd);
  return { cwd, env: { ...env, PATH: `${join(project.dir, "node_modules", ".bin")}:${env.PATH}` } };
}
