import { DM } from "../codec/constants.js";
import type { Stat } from "../codec/types.js";

const MONTHS = ["Jan", "Feb", "Mar", "Apr", "May", "Jun", "Jul", "Aug", "Sep", "Oct", "Nov", "Dec"];

/** A mode as Plan 9's ls shows it: type (d, a, l, A or -), t for temporary, then rwx for owner, group, others. */
export function modeString(mode: number): string {
  let type = "-";
  if (mode & DM.DIR) type = "d";
  else if (mode & DM.APPEND) type = "a";
  else if (mode & DM.EXCL) type = "l";
  else if (mode & DM.AUTH) type = "A";
  let s = type + (mode & DM.TMP ? "t" : "-");
  for (let shift = 6; shift >= 0; shift -= 3) {
    const bits = (mode >> shift) & 7;
    s += (bits & 4 ? "r" : "-") + (bits & 2 ? "w" : "-") + (bits & 1 ? "x" : "-");
  }
  return s;
}

function dateString(seconds: number): string {
  const d = new Date(seconds * 1000);
  const day = String(d.getDate()).padStart(2, " ");
  const time = `${String(d.getHours()).padStart(2, "0")}:${String(d.getMinutes()).padStart(2, "0")}`;
  return `${MONTHS[d.getMonth()]} ${day} ${time}`;
}

/** Lines of `ls -l`: mode, owner, group, length, modification time and name, in aligned columns. */
export function longListing(stats: Stat[]): string[] {
  const width = (f: (s: Stat) => string) => Math.max(0, ...stats.map((s) => f(s).length));
  const uw = width((s) => s.uid);
  const gw = width((s) => s.gid);
  const lw = width((s) => String(s.length));
  return stats.map(
    (s) =>
      `${modeString(s.mode)} ${s.uid.padEnd(uw)} ${s.gid.padEnd(gw)} ${String(s.length).padStart(lw)} ${dateString(s.mtime)} ${s.name}`,
  );
}
