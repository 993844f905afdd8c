import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import type { TestProject } from "vitest/node";
import { installTarballs } from "./consumer-project.js";
import { installedDocuments, repositoryDocuments } from "./documents.js";
import { writeEntryPoints } from "./entry-points.js";
import { pack, publishablePackages } from "./pack-workspace.js";
import { type ReadmeModule, writeReadmeModules } from "./readme-modules.js";
import { type Diagnostics, typecheck } from "./typecheck.js";

declare module "vitest" {
  export interface ProvidedContext {
    consumerDir: string;
    /** Every package's tarball, by name, every platform's included. */
    tarballs: Record<string, string>;
    /** Where the tarballs are, and what `npm run pack` printed for them: each package's install line. */
    packed: { dir: string; instructions: string };
    /** The requests npm made to the registry for @ollie packages while installing the consumer project. */
    ollieRequests: string[];
    /** The TypeScript and JavaScript blocks of every document, as modules of the consumer project. */
    readmeModules: ReadmeModule[];
    /** What tsc said of the consumer project: its entry points and README modules, by file. */
    diagnostics: Diagnostics;
  }
}

/**
 * Packs the workspace, installs it, and type-checks and compiles a consumer of it once (one tsc run for the
 * whole project); every test file works in the same installed project.
 */
export default async function setup(project: TestProject) {
  const root = mkdtempSync(join(tmpdir(), "ollie-consumer-"));
  const { tarballs, instructions } = await pack(join(root, "tarballs"));
  const names = publishablePackages().map((p) => p.name);
  const consumer = await installTarballs(join(root, "project"), tarballs, names);
  writeEntryPoints(consumer.dir);
  const documents = [...installedDocuments(consumer.dir), ...repositoryDocuments()];
  project.provide("readmeModules", writeReadmeModules(consumer.dir, documents));
  project.provide("diagnostics", await typecheck(consumer));
  project.provide("consumerDir", consumer.dir);
  project.provide("tarballs", tarballs);
  project.provide("packed", { dir: join(root, "tarballs"), instructions });
  project.provide("ollieRequests", consumer.ollieRequests);
  return () => rmSync(root, { recursive: true, force: true });
}
