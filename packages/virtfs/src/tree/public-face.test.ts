import type { FileServer } from "@ollie/ninep";
import { describe, expectTypeOf, it } from "vitest";
import { dir } from "../spec/node-spec.js";
import { buildTree } from "./build-tree.js";
import type { VirtualTree } from "./virtual-tree.js";

// Checked by the type checker (`pnpm typecheck`): what a built tree shows its users.
describe("a built tree's type", () => {
  it("is what NinepServer serves and prune, nothing of its nodes", () => {
    const tree = buildTree(dir("/", []));
    expectTypeOf(tree).toEqualTypeOf<VirtualTree>();
    expectTypeOf(tree).toExtend<FileServer<unknown>>();
    expectTypeOf(tree.prune).toEqualTypeOf<(path: string) => void>();
    // @ts-expect-error the tree's nodes are its own
    void tree.root;
    // @ts-expect-error and so is how it finds them
    void tree.resolve;
  });
});
