import { userInfo } from "node:os";
import { join } from "node:path";

export type Address = { kind: "unix"; path: string } | { kind: "tcp"; host: string; port: number };

/** Thrown for an address that cannot be parsed. */
export class AddressError extends Error {
  override readonly name = "AddressError";
}

/**
 * Parses plan9port's address syntax: `unix!/path`, `tcp!host!port` (`*` as host means every interface when
 * listening), or a bare path containing "/" for a Unix socket.
 */
export function parseAddress(addr: string): Address {
  const parts = addr.split("!");
  if (parts.length === 1) {
    if (addr.includes("/")) return { kind: "unix", path: addr };
    throw new AddressError(`address '${addr}' is neither unix!PATH, tcp!HOST!PORT nor a path`);
  }
  const [net, ...rest] = parts;
  if (net === "unix" && rest.length >= 1 && rest.join("!") !== "")
    return { kind: "unix", path: rest.join("!") };
  if ((net === "tcp" || net === "net") && rest.length === 2) {
    const [host, portText] = rest as [string, string];
    const port = Number(portText);
    if (!/^[0-9]+$/.test(portText) || port > 65535) {
      throw new AddressError(`address '${addr}' has a bad port '${portText}'`);
    }
    if (host === "") throw new AddressError(`address '${addr}' has no host`);
    return { kind: "tcp", host, port };
  }
  throw new AddressError(`address '${addr}' is neither unix!PATH nor tcp!HOST!PORT`);
}

export function formatAddress(a: Address): string {
  return a.kind === "unix" ? `unix!${a.path}` : `tcp!${a.host}!${a.port}`;
}

/**
 * The uname a client attaches as unless told otherwise: the account the process runs as, which is whose
 * key files it can read and who a local daemon's owner is. $USER and $LOGNAME are only the fallback (an
 * account with no password entry): they follow `su` and `sudo -E` and would claim someone the key does
 * not prove. `ninep` and `ollie` both use this.
 */
export function defaultUname(env: NodeJS.ProcessEnv = process.env): string {
  try {
    return userInfo().username;
  } catch {
    return env.USER || env.LOGNAME || String(process.getuid?.() ?? "none");
  }
}

/**
 * The directory where services post their sockets, as plan9port computes it: `$NAMESPACE` if set, otherwise
 * `/tmp/ns.$USER.$DISPLAY` with DISPLAY `:0` when unset, "/" in it replaced by "_" and a trailing ".0" screen number dropped.
 */
export function namespaceDir(env: NodeJS.ProcessEnv = process.env): string {
  if (env.NAMESPACE) return env.NAMESPACE;
  // plan9port's rule, so its tools and ours meet in the same directory.
  const user = env.USER || env.LOGNAME || defaultUname(env);
  let display = (env.DISPLAY || ":0").replaceAll("/", "_");
  if (display.endsWith(".0")) display = display.slice(0, -2);
  return `/tmp/ns.${user}.${display}`;
}

/** The address of a service posted in the namespace directory, e.g. `ramfs` → `unix!/tmp/ns.glenda.:0/ramfs`. */
export function serviceAddress(service: string, env: NodeJS.ProcessEnv = process.env): Address {
  return { kind: "unix", path: join(namespaceDir(env), service) };
}
