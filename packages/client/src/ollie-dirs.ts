import { homedir } from "node:os";
import { join } from "node:path";
import { namespaceDir } from "@ollie/ninep";

/** Where Ollie keeps things for a user, from the XDG variables and `$NAMESPACE`. */
export interface OllieDirs {
  /** `$XDG_CONFIG_HOME/ollie` (else `~/.config/ollie`): backends.conf, agents/, tools/, skills/. */
  config: string;
  /** `$XDG_DATA_HOME/ollie` (else `~/.local/share/ollie`): the owner key, the sessions, the logins. */
  data: string;
  /** `$XDG_CACHE_HOME/ollie` (else `~/.cache/ollie`): what can be made again, such as the sandbox launchers. */
  cache: string;
  /** `$XDG_STATE_HOME/ollie` (else `~/.local/state/ollie`). */
  state: string;
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
  const home = env.HOME || homedir();
  const under = (variable: string, fallback: string) => join(env[variable] || join(home, fallback), "ollie");
  const data = under("XDG_DATA_HOME", join(".local", "share"));
  return {
    config: under("XDG_CONFIG_HOME", ".config"),
    data,
    cache: under("XDG_CACHE_HOME", ".cache"),
    state: under("XDG_STATE_HOME", join(".local", "state")),
    namespace: namespaceDir(env),
    ownerKey: join(data, "keys", "owner.key"),
  };
}

/** olliesrv's own address: `unix!$NAMESPACE/ollie`. */
export function defaultAddress(env: NodeJS.ProcessEnv = process.env): string {
  return `unix!${join(ollieDirs(env).namespace, "ollie")}`;
}
