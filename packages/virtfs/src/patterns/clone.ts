import { Errno, NinepError } from "@ollie/ninep";
import type { FileContext, FileHandlers } from "../spec/context.js";
import { slice } from "./bytes.js";

export interface CloneState {
  id: Buffer | null;
}

/**
 * A `new` file: write a spec (each write makes one object) and read the created object's id back on the
 * same fid — `id=$(echo spec | …)`-style creation over plain file operations.
 */
export function clone(
  create: (spec: string, ctx: FileContext) => string | Promise<string>,
): FileHandlers<CloneState> {
  return {
    open: () => ({ id: null }),
    async write(ctx) {
      const id = await create(ctx.data.toString("utf8").trim(), ctx);
      ctx.state.id = Buffer.from(`${id}\n`);
      return ctx.data.length;
    },
    read({ state, offset, count }) {
      if (!state.id) throw new NinepError("nothing created yet: write a spec first", { errno: Errno.ENOENT });
      return slice(state.id, offset, count);
    },
  };
}
