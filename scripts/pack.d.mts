// The types of scripts/pack.mjs, for tests/consumer, which packs and installs through it.

export declare const MONOREPO: string;
/** `pnpm@VERSION`, as the root package.json pins it. */
export declare const PNPM: string;

/**
 * The publishable packages of the workspace, by directory: every non-private one this machine can install,
 * or with `everyPlatform` every non-private one (the other CPU's launcher package too).
 */
export declare function publishablePackages(options?: {
  everyPlatform?: boolean;
}): { name: string; dir: string }[];

/** Packs each package, for every platform, with pnpm, as a release does; each one's tarball by name. */
export declare function packWorkspace(destination: string): Promise<Record<string, string>>;

/** The workspace packages that installing `name` installs, itself first. */
export declare function workspaceClosure(name: string): string[];

/** The `npm install` line that installs `name` from `tarballs` (each package's tarball, by name). */
export declare function installLine(name: string, tarballs: Record<string, string>): string;

/** What `npm run pack` prints: where the tarballs are, then each package's name and, under it, its install line. */
export declare function installInstructions(tarballs: Record<string, string>, destination: string): string;

/** Packs every package into `destination`: each one's tarball by name, and what `npm run pack` prints. */
export declare function pack(
  destination: string,
): Promise<{ tarballs: Record<string, string>; instructions: string }>;
