import { OREAD } from "@ollie/ninep";
import type { OpenContext, StatContext } from "../spec/context.js";

const byteLength = (data: string | Uint8Array) =>
  typeof data === "string" ? Buffer.byteLength(data, "utf8") : data.byteLength;

/**
 * For a stat, the length of what `produce` gives now, as it would for an open for reading by the same
 * uname; 0 when it fails, as the open that follows will say why. Stays synchronous when `produce` is, so a
 * listing of many such files makes no promise for each.
 */
export function producedLength(
  produce: (ctx: OpenContext) => string | Uint8Array | Promise<string | Uint8Array>,
  asked: StatContext,
): number | Promise<number> {
  const ctx: OpenContext = {
    uname: asked.uname,
    mode: OREAD,
    truncate: false,
    get signal() {
      return asked.signal;
    },
  };
  let produced: string | Uint8Array | Promise<string | Uint8Array>;
  try {
    produced = produce(ctx);
  } catch {
    return 0;
  }
  return produced instanceof Promise ? produced.then(byteLength, () => 0) : byteLength(produced);
}
