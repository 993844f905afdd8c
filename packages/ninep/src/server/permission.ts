import { OEXEC, ORDWR, OTRUNC, OWRITE } from "../codec/constants.js";

export const PERM_READ = 4;
export const PERM_WRITE = 2;
export const PERM_EXEC = 1;

/** Decides whether a user belongs to a group. The default: only the group of the same name. */
export type GroupMembership = (uname: string, gid: string) => boolean;

export const sameNameGroups: GroupMembership = (uname, gid) => uname === gid;

export interface Owned {
  uid: string;
  gid: string;
  mode: number;
}

/**
 * Whether `uname` has every access in `want` (PERM_READ | PERM_WRITE | PERM_EXEC) on a file. One class of
 * bits applies, as on Unix: the owner's if uname owns the file, else the group's if it is a member, else the
 * others'. So a 0466 file is writable by others but not by its owner.
 */
export function permits(
  file: Owned,
  uname: string,
  want: number,
  inGroup: GroupMembership = sameNameGroups,
): boolean {
  let bits: number;
  if (uname === file.uid) bits = (file.mode >> 6) & 7;
  else if (inGroup(uname, file.gid)) bits = (file.mode >> 3) & 7;
  else bits = file.mode & 7;
  return (bits & want) === want;
}

/** The access an open mode needs: OREAD read, OWRITE write, ORDWR both, OEXEC execute; OTRUNC adds write. */
export function accessForOpenMode(mode: number): number {
  let want: number;
  switch (mode & 3) {
    case OWRITE:
      want = PERM_WRITE;
      break;
    case ORDWR:
      want = PERM_READ | PERM_WRITE;
      break;
    case OEXEC:
      want = PERM_EXEC;
      break;
    default:
      want = PERM_READ;
  }
  if (mode & OTRUNC) want |= PERM_WRITE;
  return want;
}
