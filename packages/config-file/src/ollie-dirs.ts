import { homedir } from "node:os";
import { join } from "node:path";

/**
 * The XDG base directories (the XDG Base Directory Specification) of an environment. Each variable that is
 * unset or empty falls back to its place under `$HOME` — the account's home when HOME is unset too.
 */
export interface XdgDirs {
  /** `$XDG_CONFIG_HOME`, else `~/.config`. */
  config: string;
  /** `$XDG_DATA_HOME`, else `~/.local/share`. */
  data: string;
  /** `$XDG_STATE_HOME`, else `~/.local/state`. */
  state: string;
  /** `$XDG_CACHE_HOME`, else `~/.cache`. */
  cache: string;
  /** `$XDG_RUNTIME_DIR`; undefined when it is not set, since the specification gives it no default. */
  runtime: string | undefined;
}

/** Ollie's directories: `ollie` in each XDG base directory. */
export interface OllieDirs {
  /** `$XDG_CONFIG_HOME/ollie`: backends.conf, agents/, skills/, tools/, sandbox.yaml, bypass.yaml. */
  config: string;
  /** `$XDG_DATA_HOME/ollie`: the owner key, the sessions, the providers' logins. */
  data: string;
  /** `$XDG_STATE_HOME/ollie`: what a daemon keeps between runs that is neither configuration nor data. */
  state: string;
  /** `$XDG_CACHE_HOME/ollie`: what can be made again (the sandbox launchers, remote toolsrv bundles). */
  cache: string;
  /** `$XDG_RUNTIME_DIR/ollie`; undefined when XDG_RUNTIME_DIR is not set. */
  runtime: string | undefined;
}

/** The XDG base directories of `env` (default: this process's environment). */
export function xdgDirs(env: NodeJS.ProcessEnv = process.env): XdgDirs {
  const home = env.HOME || homedir();
  return {
    config: env.XDG_CONFIG_HOME || join(home, ".config"),
    data: env.XDG_DATA_HOME || join(home, ".local", "share"),
    state: env.XDG_STATE_HOME || join(home, ".local", "state"),
    cache: env.XDG_CACHE_HOME || join(home, ".cache"),
    runtime: env.XDG_RUNTIME_DIR || undefined,
  };
}

/** Ollie's directories in `env` (default: this process's environment): `ollie` in each of `xdgDirs(env)`. */
export function ollieDirs(env: NodeJS.ProcessEnv = process.env): OllieDirs {
  const xdg = xdgDirs(env);
  return {
    config: join(xdg.config, "ollie"),
    data: join(xdg.data, "ollie"),
    state: join(xdg.state, "ollie"),
    cache: join(xdg.cache, "ollie"),
    runtime: xdg.runtime === undefined ? undefined : join(xdg.runtime, "ollie"),
  };
}
