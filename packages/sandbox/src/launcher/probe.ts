import { execa } from "execa";
import { SandboxUnavailableError } from "../errors.js";

/** What the kernel's Landlock supports, as the launcher reports it. */
export interface LandlockProbe {
  /** The ABI the launcher will use: the kernel's, capped by what the launcher knows and by `abiCap`. */
  abi: number;
  kernelAbi: number;
  launcherAbi: number;
  errata: number;
  arch: string;
  /** The launcher's interface revision. */
  revision: number;
}

/** Asks the launcher what this kernel supports. */
export async function probeLandlock(launcher: string, abiCap?: number): Promise<LandlockProbe> {
  const args = abiCap === undefined ? ["--probe"] : ["--abi-cap", String(abiCap), "--probe"];
  const result = await execa(launcher, args, { reject: false, extendEnv: false });
  if (result.exitCode !== 0) {
    throw new SandboxUnavailableError(
      `The sandbox launcher ${launcher} does not run (${String(result.stderr).trim() || `exit ${result.exitCode}`})`,
      "Rebuild it with `ollie-sandbox build`",
    );
  }
  return JSON.parse(String(result.stdout)) as LandlockProbe;
}

/**
 * What a policy cannot have at an ABI, each with the ABI that brings it: what strict mode refuses and best
 * effort goes without. (Below ABI 2 renames across directories are refused — stricter, so not listed.)
 */
export function missingFeatures(
  abi: number,
  policy: { network: { enabled: boolean; unrestricted: boolean } },
): Array<{ feature: string; needs: number }> {
  const missing: Array<{ feature: string; needs: number }> = [];
  if (policy.network.enabled && !policy.network.unrestricted && abi < 4) {
    missing.push({ feature: "TCP port rules", needs: 4 });
  }
  if (abi < 6) missing.push({ feature: "signal and abstract-socket scoping", needs: 6 });
  if (abi < 3) missing.push({ feature: "truncation control", needs: 3 });
  return missing;
}
