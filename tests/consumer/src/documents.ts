import { readdirSync } from "node:fs";
import { join } from "node:path";
import { MONOREPO, publishablePackages } from "./pack-workspace.js";

/** A Markdown file people read: where it is, and its name in messages. */
export interface Document {
  file: string;
  name: string;
}

/**
 * The Markdown files each package ships at its top (its README.md, olliesrv's NAMESPACE.md), as the consumer
 * project has them installed.
 */
export function installedDocuments(projectDir: string): Document[] {
  return publishablePackages().flatMap(({ name }) => {
    const dir = join(projectDir, "node_modules", name);
    return readdirSync(dir)
      .filter((file) => file.endsWith(".md"))
      .sort()
      .map((file) => ({ file: join(dir, file), name: `${name}/${file}` }));
  });
}

/** What people read on a fresh clone, before anything is installed. */
export function repositoryDocuments(): Document[] {
  return ["README.md", "CONTRIBUTING.md"].map((name) => ({ file: join(MONOREPO, name), name }));
}
