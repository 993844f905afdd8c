import { createHash } from "node:crypto";
import { hostname } from "node:os";

// What Kiro's clients share: how they name themselves, and where the token services are.

/** The Kiro IDE version requests say they come from (what gateways send; nothing is known to check it). */
const KIRO_VERSION = "0.7.45";

export const isObject = (v: unknown): v is Record<string, unknown> =>
  typeof v === "object" && v !== null && !Array.isArray(v);
/** A string that says something, else undefined. */
export const nonEmpty = (v: unknown): string | undefined =>
  typeof v === "string" && v !== "" ? v : undefined;

/**
 * The 64-hex machine id Kiro's clients put in their user agent. The server is not known to check it; a
 * hash of the host name keeps it stable without saying which host.
 */
export function kiroIdeAgent(): string {
  const machineId = createHash("sha256").update(`ollie:${hostname()}`).digest("hex");
  return `KiroIDE-${KIRO_VERSION}-${machineId}`;
}

/** The AWS SSO OIDC service of a region. */
export const oidcUrlOf = (region: string) => `https://oidc.${region}.amazonaws.com`;
