import { readFile } from "node:fs/promises";
import { defaultUname } from "@ollie/ninep";
import { KeyFileError } from "../errors.js";
import { ollieDirs } from "../ollie-dirs.js";

/** Who a client attaches as, and the secret that proves it. */
export interface Identity {
  uname: string;
  key: string;
}

/** What a caller may say about who it is (see ConnectOptions). */
export interface IdentityOptions {
  uname?: string | undefined;
  key?: string | undefined;
  keyFile?: string | undefined;
}

/**
 * Who the client is: `key` (or the key in `keyFile`) proving `uname`, which defaults to the account running
 * the process; else, inside an agent's tool, that agent (`OLLIE_UNAME` and `OLLIE_KEY`, when no uname is
 * given); else the owner, proven with the owner key where olliesrv keeps it. The key file is read only here,
 * so a client that never reaches olliesrv never asks for it.
 */
export async function resolveIdentity(
  options: IdentityOptions,
  env: NodeJS.ProcessEnv = process.env,
): Promise<Identity> {
  const uname = options.uname ?? defaultUname(env);
  if (options.key !== undefined) return { uname, key: options.key };
  if (options.keyFile !== undefined) return { uname, key: await readKeyFile(options.keyFile) };
  if (options.uname === undefined && env.OLLIE_UNAME && env.OLLIE_KEY)
    return { uname: env.OLLIE_UNAME, key: env.OLLIE_KEY };
  return { uname, key: await readKeyFile(ollieDirs(env).ownerKey) };
}

/** A key file's secret: its text, without the newline after it. */
async function readKeyFile(file: string): Promise<string> {
  let text: string;
  try {
    text = await readFile(file, "utf8");
  } catch (error) {
    throw new KeyFileError(file, (error as NodeJS.ErrnoException).code ?? "EIO", { cause: error });
  }
  const key = text.trim();
  if (key === "") throw new KeyFileError(file, undefined);
  return key;
}
