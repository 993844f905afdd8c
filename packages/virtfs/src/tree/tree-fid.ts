import type { VNode } from "./vnode.js";

/** One open of a node, as a fid holds it. */
export interface OpenFile {
  state: unknown;
  mode: number;
  closed: boolean;
}

/** What a fid of a served tree holds. */
export interface TreeFid {
  node: VNode;
  open: OpenFile | null;
}

/** What a fid denoting `node` holds; the node counts the fid until `clunk`. */
export function held(node: VNode): TreeFid {
  node.hold();
  return { node, open: null };
}
