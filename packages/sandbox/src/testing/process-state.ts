import { readFileSync } from "node:fs";

/** The fields of `/proc/PID/stat` after the command name, which may itself hold spaces and parentheses. */
function statFields(pid: number): string[] | undefined {
  let stat: string;
  try {
    stat = readFileSync(`/proc/${pid}/stat`, "utf8");
  } catch {
    return undefined;
  }
  return stat.slice(stat.lastIndexOf(") ") + 2).split(" ");
}

/** A process's state letter (`R`, `S`, `D`, `Z`, …), or undefined when there is no such process. */
export function processState(pid: number): string | undefined {
  return statFields(pid)?.[0];
}

/** Whether a process is gone: there is none with this pid, or it is a zombie (it runs nothing any more). */
export function processGone(pid: number): boolean {
  const state = processState(pid);
  return state === undefined || state === "Z";
}

/** A process's parent, or undefined when there is no such process. */
export function parentOf(pid: number): number | undefined {
  const ppid = statFields(pid)?.[1];
  return ppid === undefined ? undefined : Number(ppid);
}
