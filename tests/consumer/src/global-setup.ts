import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import type { TestProject } from "vitest/node";
import { installTarballs } from "./consumer-project.js";
import { packWorkspace, publishablePackages } from "./pack-workspace.js";

declare module "vitest" {
  export interface ProvidedContext {
    consumerDir: string;
    /** Every package's tarball, by name, every platform's included. */
    tarballs: Record<string, string>;
    /** The requests npm made to the registry for @ollie packages while installing the consumer project. */
    ollieRequests: string[];
  }
}

/**
 * Packs the workspace and installs every package this machine can install once; every test file works in
 * the same installed project (or installs a smaller one from the same tarballs).
 */
export default async function setup(project: TestProject) {
  const root = mkdtempSync(join(tmpdir(), "ollie-consumer-"));
  const tarballs = await packWorkspace(join(root, "tarballs"));
  const names = publishablePackages().map((p) => p.name);
  const consumer = await installTarballs(join(root, "project"), tarballs, names);
  project.provide("consumerDir", consumer.dir);
  project.provide("tarballs", tarballs);
  project.provide("ollieRequests", consumer.ollieRequests);
  return () => rmSync(root, { recursive: true, force: true });
}
