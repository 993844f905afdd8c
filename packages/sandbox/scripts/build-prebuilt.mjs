// Builds the prebuilt launchers into the per-platform packages (packages/sandbox-linux-ARCH/bin) and pins
// their stamps into dist/prebuilt.json, which @ollie/sandbox checks a prebuilt launcher against before using
// it. Run by the package's build, after tsup. This machine's launcher is linked with musl where musl-gcc is
// installed (Debian's musl-tools): a static musl binary starts in a fraction of the time a static glibc one
// takes. The other architecture needs Debian's cross compiler (gcc-aarch64-linux-gnu or
// gcc-x86-64-linux-gnu); without it that launcher is skipped, unless OLLIE_RELEASE is set, when every
// launcher must be built.
import { rm, writeFile } from "node:fs/promises";
import { dirname, join } from "node:path";
import { fileURLToPath } from "node:url";
import { compileLauncher, LAUNCHER_TARGETS } from "../dist/index.js";

const root = join(dirname(fileURLToPath(import.meta.url)), "..");
const release = Boolean(process.env.OLLIE_RELEASE);
const pinned = {};
for (const target of LAUNCHER_TARGETS) {
  const bin = join(root, "..", `sandbox-linux-${target}`, "bin");
  try {
    const musl =
      target === process.arch
        ? await compileLauncher(bin, { target, staticOnly: true, compiler: "musl-gcc" }).catch(
            () => undefined,
          )
        : undefined;
    const stamp = musl ?? (await compileLauncher(bin, { target, staticOnly: true }));
    pinned[`linux-${target}`] = stamp;
    console.log(`built the ${target} launcher: ${stamp.binary.slice(0, 16)} (${stamp.compiler})`);
  } catch (err) {
    if (release || target === process.arch) throw err;
    await rm(bin, { recursive: true, force: true });
    console.log(`skipped the ${target} launcher: ${err.message.split(". ")[0]}`);
  }
}
await writeFile(join(root, "dist", "prebuilt.json"), `${JSON.stringify(pinned, null, 2)}\n`);
