import { closeSync, fstatSync, writeSync } from "node:fs";
import type { Logger } from "@ollie/log";
import { DaemonLock } from "./daemon-lock.js";

/**
 * Takes the lock of the address `path` (see DaemonLock), or returns the exit status when another olliesrv
 * of this user holds it: one that is stopping is waited for, and then the lock taken; one starting or
 * serving makes this one fail, saying so — unless `--ready-fd` was given (`readyFd`), whose reader wants a
 * daemon serving at the address and is told once that one serves (status 0). A lock held by a stranger is
 * said, and gone without.
 */
export async function takeAddress(
  path: string,
  readyFd: number | undefined,
  log: Logger,
): Promise<DaemonLock | undefined | number> {
  for (;;) {
    const taken = await DaemonLock.take(path);
    if ("lock" in taken) return taken.lock;
    if ("foreign" in taken) {
      const { pid, uid } = taken.foreign;
      log.warn(`the lock for ${path} is held by pid ${pid} (uid ${uid}), not an olliesrv of yours; going on`);
      return undefined;
    }
    const { held, state } = taken;
    try {
      if (state === "stopping") {
        log.debug(`olliesrv pid ${held.pid} is stopping on ${path}; starting once it has`);
        await held.gone;
        continue;
      }
      if (readyFd === undefined) {
        if (state === "ready") log.error(`another server is listening on ${path} (olliesrv pid ${held.pid})`);
        else log.error(`another olliesrv (pid ${held.pid}) is ${state} on ${path}`);
        return 1;
      }
      // Started on demand, as another was: that one serving is what the reader waits for.
      if ((await held.ready) !== "ready") {
        await held.gone;
        continue;
      }
      log.debug(`olliesrv pid ${held.pid} serves on ${path}; leaving it to`);
      sayReady(readyFd, `unix!${path}`);
      return 0;
    } finally {
      held.close();
    }
  }
}

/** Whether `fd` is an open descriptor of this process. */
export function isOpen(fd: number): boolean {
  try {
    fstatSync(fd);
    return true;
  } catch {
    return false;
  }
}

/** Writes the address to the `--ready-fd` descriptor and closes it; a reader gone already changes nothing. */
export function sayReady(fd: number, bound: string): void {
  try {
    writeSync(fd, `${bound}\n`);
  } catch {}
  try {
    closeSync(fd);
  } catch {}
}
