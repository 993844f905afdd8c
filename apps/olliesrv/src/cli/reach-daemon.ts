import { resolve } from "node:path";
import { connect, DialError, defaultAddress, type OllieClient } from "@ollie/client";
import { parseDuration } from "../duration.js";
import { DEFAULT_IDLE_EXIT, startDaemon } from "./start-daemon.js";

/** How `ollie` reaches olliesrv: its global options, and whether it may start one. */
export interface Reach {
  /** `-a`: where olliesrv is (default: `$NAMESPACE/ollie`). */
  address: string | undefined;
  /** `-u`, `-k`: who to attach as, and the key that proves it. */
  uname: string | undefined;
  keyFile: string | undefined;
  /** `--keep-daemon`: an olliesrv this command starts keeps running when idle. */
  keepDaemon: boolean;
  env: NodeJS.ProcessEnv;
}

/**
 * Dials olliesrv — and, when nothing answers at ollie's own address, starts one and dials it once it serves
 * (see startDaemon): every command that needs olliesrv does so, as tmux starts its server. Not at an
 * address given with `-a` that is not the default (a daemon elsewhere is someone else's to start), not
 * inside an agent's tool (`OLLIE_UNAME` and `OLLIE_KEY` set), and not with `OLLIE_AUTOSTART=0` (olliesrv
 * run as a service, say): there the DialError says nothing answers, and why none was started.
 * The olliesrv it starts stops after `$OLLIE_IDLE_EXIT` (default 15m) without a client or a live agent,
 * or never with `--keep-daemon` (or `OLLIE_IDLE_EXIT=0`).
 */
export async function reachDaemon(reach: Reach): Promise<OllieClient> {
  const { env } = reach;
  const ownAddress = defaultAddress(env);
  const address = reach.address ?? ownAddress;
  const dial = () => connect({ address, uname: reach.uname, keyFile: reach.keyFile, env });
  try {
    return await dial();
  } catch (error) {
    if (!(error instanceof DialError) || !error.notRunning) throw error;
    if (!sameAddress(address, ownAddress))
      throw new DialError(
        address,
        error.code,
        `nothing answers there, and ollie starts olliesrv only at its own address, ${ownAddress}`,
        { cause: error },
      );
    if (env.OLLIE_AUTOSTART === "0")
      throw new DialError(address, error.code, "nothing answers there, and OLLIE_AUTOSTART=0 starts none", {
        cause: error,
      });
    if (env.OLLIE_UNAME && env.OLLIE_KEY && reach.uname === undefined && reach.keyFile === undefined)
      throw new DialError(
        address,
        error.code,
        "nothing answers there, and an agent's tool starts no olliesrv",
        {
          cause: error,
        },
      );
    await startDaemon({
      socketPath: ownAddress.slice("unix!".length),
      env,
      idleExit: reach.keepDaemon ? "0" : idleExit(env),
    });
    return await dial();
  }
}

/** `$OLLIE_IDLE_EXIT`, checked (a usage mistake names it), else the default. */
function idleExit(env: NodeJS.ProcessEnv): string {
  const given = env.OLLIE_IDLE_EXIT?.trim();
  if (!given) return DEFAULT_IDLE_EXIT;
  parseDuration(given, "$OLLIE_IDLE_EXIT");
  return given;
}

/** Whether `address` names the Unix socket `own` does (`unix!PATH`, or a bare path). */
function sameAddress(address: string, own: string): boolean {
  const path = (a: string) => {
    if (a.startsWith("unix!")) return resolve(a.slice("unix!".length));
    return a.includes("!") ? undefined : resolve(a);
  };
  return path(address) !== undefined && path(address) === path(own);
}
