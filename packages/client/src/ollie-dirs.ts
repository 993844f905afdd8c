import { join } from "node:path";
import { type OllieDirs as Dirs, ollieDirs as dirsOf } from "@ollie/config-file/dirs";
import { namespaceDir } from "@ollie/ninep";

/**
 * Where Ollie keeps things for a user: its XDG directories (`@ollie/config-file/dirs`, where every Ollie
 * package resolves them), and where a client finds olliesrv — `$NAMESPACE` and the owner key.
 */
export interface OllieDirs extends Dirs {
  /** The directory services post their sockets in: `$NAMESPACE`, else plan9port's `/tmp/ns.$USER.$DISPLAY`. */
  namespace: string;
  /** `$XDG_DATA_HOME/ollie/keys/owner.key`: the secret olliesrv makes at its first start, which proves its owner. */
  ownerKey: string;
}

/**
 * Ollie's directories for the environment `env`. An XDG variable that is unset or empty falls back to its
 * default under `$HOME` (the account's home when HOME is unset too), as olliesrv resolves them.
 */
export function ollieDirs(env: NodeJS.ProcessEnv = process.env): OllieDirs {
  const dirs = dirsOf(env);
  return { ...dirs, namespace: namespaceDir(env), ownerKey: join(dirs.data, "keys", "owner.key") };
}

/** olliesrv's own address: `unix!$NAMESPACE/ollie`. */
export function defaultAddress(env: NodeJS.ProcessEnv = process.env): string {
  return `unix!${join(ollieDirs(env).namespace, "ollie")}`;
}
