import { type AddressDial, ToolsrvLostError, type ToolsrvRoute } from "./redialing-tools.js";
import type { ToolsrvSupervisor } from "./toolsrv-supervisor.js";

/** How long a dial waits for a toolsrv that is being started again. */
const DIAL_WAIT_MS = 30_000;
/**
 * How soon the next start of a toolsrv that keeps dying must be for a dial to wait for it: a blip is waited
 * out, a toolsrv that stays down fails the call at once, saying why.
 */
const PATIENCE_MS = 5000;
/**
 * How long the supervisor may take to learn that toolsrv died once its socket says so (the connection closed,
 * or nobody listens): the kernel tells it of the death at about the same time.
 */
const LEARN_MS = 2000;

/** Whether a dial failed because nobody listens at the address: toolsrv died (and left its socket) or is gone. */
function refused(error: unknown): boolean {
  const code = (error as NodeJS.ErrnoException).code;
  return code === "ECONNREFUSED" || code === "ENOENT";
}

/**
 * The route to the toolsrv olliesrv started and keeps running: a dial waits while it is being started again,
 * or will be within PATIENCE_MS (a dial refused by one that has just died, before the supervisor noticed,
 * waits for the next), and fails at once, saying why, while it is down for longer. A call its death cut off ends with "toolsrv restarted during this
 * call".
 */
export function supervisedRoute(supervisor: ToolsrvSupervisor, dial: AddressDial): ToolsrvRoute {
  /** The toolsrv the last dial reached (see ToolsrvSupervisor.run); 0 before the first. */
  let dialled = 0;
  return {
    async dial(loaded) {
      const signal = AbortSignal.timeout(DIAL_WAIT_MS);
      const late = (error: unknown) => {
        if (!signal.aborted) throw error;
        throw new Error(
          `toolsrv did not come back within ${DIAL_WAIT_MS / 1000} s (${supervisor.status().state}; last exit: ${supervisor.lastExit ?? "none"})`,
        );
      };
      for (;;) {
        const run = await supervisor.ready(signal, PATIENCE_MS).catch(late);
        try {
          const conn = await dial(supervisor.address, loaded);
          dialled = run;
          return conn;
        } catch (error) {
          if (!refused(error)) throw error;
          // Nobody listens: toolsrv has just died, and the supervisor learns it in a moment; then the next one
          // is waited for. One that has not died in that moment is not olliesrv's to explain.
          const learning = AbortSignal.any([signal, AbortSignal.timeout(LEARN_MS)]);
          await supervisor.ended(run, learning).catch(() => {
            throw error;
          });
        }
      }
    },
    lostReason: () =>
      dialled > 0 && supervisor.hasEnded(dialled) ? (supervisor.lastExit ?? "toolsrv ended") : undefined,
    async lostCall(error) {
      const run = dialled;
      const died = await supervisor.ended(run, AbortSignal.timeout(LEARN_MS)).then(
        () => true,
        () => false,
      );
      if (!died)
        return new ToolsrvLostError(
          "toolsrv",
          error.message,
          `the connection to toolsrv was lost during this call (${error.message}); it did not finish, and the next call connects again`,
        );
      const why = supervisor.lastExit ?? "it ended";
      return new ToolsrvLostError(
        "toolsrv",
        why,
        `toolsrv restarted during this call; it did not finish (toolsrv died: ${why}), and the processes it had started ended with it. The next call runs on the new toolsrv`,
      );
    },
  };
}

/**
 * The route to a toolsrv given with `--toolsrv`, which olliesrv neither started nor watches: dialled again
 * at the next use after its connection closed.
 */
export function givenRoute(address: string, dial: AddressDial): ToolsrvRoute {
  return {
    dial: (loaded) => dial(address, loaded),
    lostReason: () => undefined,
    lostCall: async (error) =>
      new ToolsrvLostError(
        `toolsrv at ${address}`,
        error.message,
        `the connection to toolsrv at ${address} was lost during this call (${error.message}); it did not finish, and the next call connects again`,
      ),
  };
}
