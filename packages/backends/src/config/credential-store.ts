import { readFile } from "node:fs/promises";
import { join } from "node:path";
import { ollieDirs } from "@ollie/config-file/dirs";

/** The credential file could not be read: which file, and why. Never contains a credential. */
export class CredentialStoreError extends Error {
  override readonly name = "CredentialStoreError";
  constructor(
    readonly file: string,
    problem: string,
  ) {
    super(`${file}: ${problem}`);
  }
}

/**
 * Where Ollie keeps the credentials its logins obtain (`ollie login copilot`, `ollie login kiro`):
 * `$XDG_DATA_HOME/ollie/credentials.json`, else `~/.local/share/ollie/credentials.json`. Mode 0600 in a
 * 0700 directory.
 */
export function credentialStoreFile(env: NodeJS.ProcessEnv = process.env): string {
  return join(ollieDirs(env).data, "credentials.json");
}

/** Reads a JSON file, or undefined when it does not exist; a file that is not JSON is an error. */
export async function readJsonFile(file: string): Promise<unknown> {
  let text: string;
  try {
    text = await readFile(file, "utf8");
  } catch (err) {
    if ((err as NodeJS.ErrnoException).code === "ENOENT") return undefined;
    throw new CredentialStoreError(file, `cannot be read: ${(err as Error).message}`);
  }
  try {
    return JSON.parse(text) as unknown;
  } catch {
    throw new CredentialStoreError(file, "is not valid JSON (it was left as it is)");
  }
}

async function readStore(file: string): Promise<Record<string, unknown>> {
  const store = (await readJsonFile(file)) ?? {};
  if (typeof store !== "object" || store === null || Array.isArray(store))
    throw new CredentialStoreError(file, "is not a JSON object (it was left as it is)");
  return store as Record<string, unknown>;
}

/** The entry stored under `key` ("copilot", "kiro"), or undefined. */
export async function readStoredCredential(file: string, key: string): Promise<unknown> {
  return (await readStore(file))[key];
}

/**
 * Stores `value` under `key` (undefined removes it), keeping the other entries: the whole file is
 * written again atomically, mode 0600.
 */
export async function storeCredential(file: string, key: string, value: unknown): Promise<void> {
  const store = await readStore(file);
  if (value === undefined) delete store[key];
  else store[key] = value;
  await writeJsonAtomic(file, store);
}

/** Writes JSON atomically, mode 0600 (config-file is loaded only by the programs that write credentials). */
export async function writeJsonAtomic(file: string, value: unknown): Promise<void> {
  const { writeFileAtomic } = await import("@ollie/config-file");
  await writeFileAtomic(file, `${JSON.stringify(value, null, 2)}\n`);
}
