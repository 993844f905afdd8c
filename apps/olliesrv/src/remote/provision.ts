import { existsSync } from "node:fs";
import { rename } from "node:fs/promises";
import { execa } from "execa";
import { type Bundle, stageBundle } from "./bundle.js";
import { shellQuote } from "./remote-target.js";
import { SshError, type SshMaster } from "./ssh-master.js";

/** The data directory as an absolute path in the remote shell: `$HOME/…` unless it starts with '/'. */
export const remoteDir = (dir: string) =>
  dir.startsWith("/") ? shellQuote(dir) : `"$HOME"/${shellQuote(dir)}`;

/**
 * Where the bundles go in the data directory, all under one directory that toolsrv there protects (no tool
 * may change what runs outside the sandbox), apart from the memory directory beside it, which tools write.
 */
export const BUNDLES = "bundles";

/** A bundle as one gzipped tar under `cacheDir`, made once per hash. */
async function packed(bundle: Bundle, cacheDir: string): Promise<string> {
  const staged = await stageBundle(bundle, cacheDir);
  const tarball = `${staged}.tar.gz`;
  if (!existsSync(tarball)) {
    const temp = `${tarball}.${process.pid}.tmp`;
    await execa("tar", ["-czf", temp, "-C", staged, "."]);
    await rename(temp, tarball);
  }
  return tarball;
}

/**
 * Makes sure the host can run toolsrv: Node.js 20 or later as `node`, and each of `bundles` in
 * `dataDir/bundles/HASH`, sent (as a tar, unpacked beside its place and renamed into it, so no host has half
 * a bundle under its name) only when the host lacks it. Resolves with how many were sent.
 */
export async function provision(
  master: SshMaster,
  bundles: readonly Bundle[],
  dataDir: string,
  node: string,
  cacheDir: string,
): Promise<number> {
  const stored = `${remoteDir(dataDir)}/${BUNDLES}`;
  const dir = (b: Bundle) => `${stored}/${b.hash}`;
  const presence = bundles.map((b) => `{ test -f ${dir(b)}/bundle.json && echo present || echo absent; }`);
  const probe = await master.run(
    [`${shellQuote(node)} -e 'process.stdout.write(process.versions.node)' && echo`, ...presence].join(
      " && ",
    ),
    { stdin: "ignore" },
  );
  const [version, ...present] = String(probe.stdout).trim().split("\n");
  if (probe.exitCode !== 0 || !version) {
    const said = String(probe.stderr).trim() || "it did not run";
    throw new SshError(master.destination, `no Node.js '${node}' there: ${said}`);
  }
  if (Number(version.split(".")[0]) < 20) {
    throw new SshError(
      master.destination,
      `toolsrv needs Node.js 20 or later there; '${node}' is ${version}`,
    );
  }
  const missing = bundles.filter((_, i) => present[i] !== "present");
  for (const bundle of missing) {
    const unpack = await master.run(
      `set -e; mkdir -p ${stored}; t=$(mktemp -d ${stored}/.incoming.XXXXXX); ` +
        `tar -xzf - -C "$t"; mv "$t" ${dir(bundle)} 2>/dev/null || rm -rf "$t"; test -f ${dir(bundle)}/bundle.json`,
      { inputFile: await packed(bundle, cacheDir) },
    );
    if (unpack.exitCode !== 0) {
      throw new SshError(master.destination, `sending toolsrv failed: ${String(unpack.stderr).trim()}`);
    }
  }
  return missing.length;
}
