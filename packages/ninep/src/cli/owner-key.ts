import { readFile } from "node:fs/promises";
import { homedir } from "node:os";
import { basename, dirname, join } from "node:path";
import { type Address, namespaceDir } from "../transport/address.js";

/**
 * Where `ninep` looks, without -k, for the key of a service posted in the namespace directory as NAME:
 * `$XDG_DATA_HOME/NAME/keys/owner.key` (`~/.local/share` when XDG_DATA_HOME is unset or empty). It is where a
 * service that proves its owner by a key keeps that key — olliesrv, posted as `ollie`, makes
 * `$XDG_DATA_HOME/ollie/keys/owner.key` at its first start — so `ninep ls ollie/session` attaches as `ollie`
 * does. ninep depends on no package, so the XDG rule (the same as `@ollie/config-file/dirs`) is spelled here.
 * Undefined for any other address: a TCP one, or a socket elsewhere.
 */
export function ownerKeyPath(address: Address, env: NodeJS.ProcessEnv = process.env): string | undefined {
  if (address.kind !== "unix" || dirname(address.path) !== namespaceDir(env)) return undefined;
  const data = env.XDG_DATA_HOME || join(env.HOME || homedir(), ".local", "share");
  return join(data, basename(address.path), "keys", "owner.key");
}

/**
 * The owner key of the service at `address` (see ownerKeyPath), or undefined when there is none to read.
 * A key that exists but cannot be read is an error that names it: attaching without it would only be
 * refused with a reason that does not say why.
 */
export async function readOwnerKey(address: Address, env: NodeJS.ProcessEnv = process.env) {
  const path = ownerKeyPath(address, env);
  if (path === undefined) return undefined;
  try {
    return { path, key: (await readFile(path, "utf8")).trim() };
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code === "ENOENT") return undefined;
    throw new Error(`cannot read the owner key ${path}: ${(error as Error).message}`, { cause: error });
  }
}
