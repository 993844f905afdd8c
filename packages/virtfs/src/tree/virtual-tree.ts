import type { FileServer } from "@ollie/ninep";

/**
 * A built tree: the FileServer to hand to @ollie/ninep's `NinepServer` (what its fids hold is the tree's
 * own business), and what a service may ask of it besides.
 */
export interface VirtualTree extends FileServer<unknown> {
  /**
   * Releases what the tree holds for items that left the `each` collection at `path` other than by Tremove
   * (a service deleted them itself). Without it they are released at the next listing or walk of the
   * collection; call it when the items are big or many.
   */
  prune(path: string): void;
}
