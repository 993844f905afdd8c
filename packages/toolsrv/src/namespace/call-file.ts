import type { FileHandlers } from "@ollie/virtfs";
import { abortable } from "../exec/abortable.js";
import type { CallResult } from "../protocol/call.js";
import type { ToolService } from "../server/tool-service.js";

interface CallState {
  request: Buffer[];
  /** Resolves at the first write: a read sent with it, before it is handled, waits for it. */
  written: Promise<void>;
  wrote(): void;
  /** Aborted when the fid is clunked: the call's process group is killed. */
  cancel: AbortController;
  result?: Promise<Buffer>;
}

/**
 * The `call` file: write one JSON call (in as many writes as it takes), then read its JSON result on the
 * same fid — the first read starts the call and waits for it. A read before any write waits for the first
 * one, so a client may send a one-write call and its read together: a call then costs one round trip.
 * Clunking the fid before the result is read cancels the call and kills its processes. One call per open.
 */
export function callFile(service: ToolService): FileHandlers<CallState> {
  return {
    open: () => {
      let wrote = () => {};
      const written = new Promise<void>((resolve) => {
        wrote = resolve;
      });
      return { request: [], written, wrote, cancel: new AbortController() };
    },
    write({ state, data }) {
      if (state.result) throw new Error("this fid has made its call: open call again for another");
      state.request.push(Buffer.from(data));
      state.wrote();
      return data.length;
    },
    async read({ state, uname, offset, count, signal }) {
      if (!state.result && state.request.length === 0) await abortable(state.written, signal);
      state.result ??= start(service, uname, state);
      const result = await abortable(state.result, signal);
      return result.subarray(offset, offset + count);
    },
    close({ state }) {
      state.cancel.abort(new Error("the call's fid was clunked"));
    },
  };
}

async function start(service: ToolService, uname: string, state: CallState): Promise<Buffer> {
  const timing = service.startTiming();
  let request: unknown;
  let result: CallResult;
  try {
    request = JSON.parse(Buffer.concat(state.request).toString("utf8"));
    timing?.mark("parse");
    result = await service.call(uname, request, state.cancel.signal, timing);
  } catch (error) {
    result = { output: `bad call request: ${(error as Error).message}`, isError: true };
  }
  if (timing) {
    timing.mark("result");
    result.timing = timing.toJSON();
  }
  return Buffer.from(`${JSON.stringify(result)}\n`);
}
