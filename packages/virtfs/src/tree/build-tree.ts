import type { DirSpec } from "../spec/node-spec.js";
import type { TreeOptions } from "./tree-options.js";
import { TreeServer } from "./tree-server.js";
import type { VirtualTree } from "./virtual-tree.js";

/**
 * Builds a served tree from a declaration: pass the result to @ollie/ninep's `NinepServer`. The declaration
 * is only read; one declaration can back several trees.
 */
export function buildTree(root: DirSpec, options: TreeOptions = {}): VirtualTree {
  return new TreeServer(root, options);
}
