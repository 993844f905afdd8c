import { userInfo } from "node:os";

/** The id of a user a 9P2000.L client is told of when the tree names one it has no number for. */
export const NOBODY = 65534;

/**
 * Users' names and numbers on one 9P2000.L connection. 9P2000 trees name owners; Linux clients number
 * them: an attach that gives a number (`n_uname`) tells which name it stands for, numeric names are their
 * own numbers, the user running the server is its own id, and anyone else is nobody (65534).
 */
export class UserIds {
  private readonly numbers = new Map<string, number>();

  /** The name an attach with an empty uname and the number `nUname` stands for. */
  nameOf(nUname: number): string {
    return nUname === process.getuid?.() ? userInfo().username : String(nUname);
  }

  note(name: string, nUname: number): void {
    this.numbers.set(name, nUname);
  }

  readonly idOf = (name: string): number => {
    const known = this.numbers.get(name);
    if (known !== undefined) return known;
    if (/^[0-9]+$/.test(name)) return Number(name);
    return name === userInfo().username ? (process.getuid?.() ?? NOBODY) : NOBODY;
  };
}
