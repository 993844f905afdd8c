import { shellQuote } from "./remote-target.js";
import { SshError, type SshMaster } from "./ssh-master.js";

/**
 * A shell function `own_dir DIR`: makes DIR (mode 0700) unless it is there, and refuses it — printing why
 * and ending the script — unless it is a directory of this user's own and no symlink, as a directory another
 * user made first in a shared /tmp would not be. It is made private (0700) whatever it was.
 */
const OWN_DIR =
  'own_dir() { mkdir -p -m 700 "$1" || exit 1; test ! -h "$1" && test -O "$1" && chmod 700 "$1" || ' +
  `{ echo "$1 is a symlink or not $(id -un)'s own: remove it, or set another TMPDIR there" >&2; exit 1; }; }`;

/**
 * The agent's own TMPDIR on the host, as it has one here: `$TMPDIR/ollie-UID/UNAME` there (`/tmp/ollie-UID/…`
 * where the host sets no TMPDIR), each part made 0700 if absent and refused if it is a symlink or another
 * user's. Its tools get it as TMPDIR, so the policy's `{TMPDIR}` grants it rather than the shared /tmp.
 */
export async function agentTmpDir(master: SshMaster, uname: string): Promise<string> {
  const script =
    `${OWN_DIR}; r="\${TMPDIR:-/tmp}/ollie-$(id -u)"; own_dir "$r"; ` +
    `own_dir "$r"/${shellQuote(uname)}; printf '%s\\n' "$r"/${shellQuote(uname)}`;
  const made = await master.run(script, { stdin: "ignore" });
  // The last line: a start-up file of the remote shell may print before it.
  const dir = String(made.stdout).trim().split("\n").pop() ?? "";
  if (made.exitCode !== 0 || !dir.startsWith("/")) {
    const said = String(made.stderr).trim().split("\n").pop() || `status ${made.exitCode}`;
    throw new SshError(master.destination, `cannot make ${uname}'s TMPDIR there: ${said}`);
  }
  return dir;
}
