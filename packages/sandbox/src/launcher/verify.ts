import { readFile, stat } from "node:fs/promises";
import { SandboxUnavailableError } from "../errors.js";
import { sha256 } from "./compile.js";

interface Identity {
  dev: number;
  ino: number;
  size: number;
  mtimeMs: number;
  ctimeMs: number;
}

/**
 * Files whose bytes were hashed, by path, with the identity they had then. Any write changes the ctime (which,
 * unlike the mtime, cannot be set back), so an unchanged identity means unchanged bytes.
 */
const verified = new Map<string, Identity & { hash: string }>();

const same = (a: Identity, b: Identity) =>
  a.dev === b.dev &&
  a.ino === b.ino &&
  a.size === b.size &&
  a.mtimeMs === b.mtimeMs &&
  a.ctimeMs === b.ctimeMs;

/** The sha256 of a file's bytes, read and hashed only when its identity changed since the last time. */
export async function fileHash(path: string): Promise<string> {
  const before = await stat(path);
  const known = verified.get(path);
  if (known && same(known, before)) return known.hash;
  const hash = sha256(await readFile(path));
  const after = await stat(path);
  if (same(before, after)) verified.set(path, { ...pick(after), hash });
  return hash;
}

function pick(s: Identity): Identity {
  return { dev: s.dev, ino: s.ino, size: s.size, mtimeMs: s.mtimeMs, ctimeMs: s.ctimeMs };
}

/** Refuses a launcher whose bytes are not the ones it was built or released as. */
export async function checkLauncher(path: string, expected: string): Promise<void> {
  const actual = await fileHash(path).catch((err: Error) => `unreadable (${err.message})`);
  if (actual !== expected) {
    throw new SandboxUnavailableError(
      `The sandbox launcher ${path} is not the one that was built (sha256 ${actual}, expected ${expected}); nothing runs with it`,
      "Remove it and run `ollie-sandbox build`, or reinstall @ollie/sandbox",
    );
  }
}
