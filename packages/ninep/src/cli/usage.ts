export const USAGE = `usage: ninep [-a ADDRESS] [-A ANAME] [-u UNAME] [-k KEYFILE] [-D] [-L] COMMAND ARGS...
       ninep --help | --version

Commands on a 9P server:
  ls [-l] [-d] PATH...     list directories (or name files); -l long form, -d the directory itself
  read PATH                copy a file to standard output, following it while it blocks
  write [-l] [-r] PATH     copy standard input to a file (truncated first); -l: one write per line;
                           -r: then read the file's answer through the same open (a clone file's name)
  rdwr PATH                show the file, then write each input line to it and show its answer
  stat PATH...             print the stat entry of each path
  create [-d] [-m MODE] PATH...
                           create files (or directories with -d); MODE in octal
  rm PATH...               remove files and empty directories

Serving:
  ramfs [-a ADDRESS] [-u OWNER]
                           serve an in-memory file tree (default address: $NAMESPACE/ramfs)

Addresses are unix!PATH, tcp!HOST!PORT or a socket path. Without -a, the first element of each PATH
names a service posted in the namespace directory ($NAMESPACE, or /tmp/ns.$USER.$DISPLAY):
  ninep read ramfs/notes   reads /notes from the server at $NAMESPACE/ramfs.
-u sets the uname to attach as (default: the name of the account running ninep, else $USER); -k proves it
with the secret in KEYFILE; without -k, a service posted in the namespace directory as NAME is proven with
its owner key, $XDG_DATA_HOME/NAME/keys/owner.key, when there is one (olliesrv's, as ollie/);
-D traces every 9P message to standard error; -L speaks 9P2000.L (Linux's dialect) when the server does.
`;

/** A mistake in how the command was called: the message is printed with the usage, exit status 2. */
export class UsageError extends Error {
  override readonly name = "UsageError";
}
