import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import type { TestProject } from "vitest/node";
import { installTarballs } from "./consumer-project.js";
import { packWorkspace } from "./pack-workspace.js";

declare module "vitest" {
  export interface ProvidedContext {
    consumerDir: string;
  }
}

/** Packs the workspace and installs it once; every test file works in the same installed project. */
export default async function setup(project: TestProject) {
  const root = mkdtempSync(join(tmpdir(), "ollie-consumer-"));
  const tarballs = await packWorkspace(join(root, "tarballs"));
  const consumer = await installTarballs(join(root, "project"), tarballs);
  project.provide("consumerDir", consumer.dir);
  return () => rmSync(root, { recursive: true, force: true });
}
