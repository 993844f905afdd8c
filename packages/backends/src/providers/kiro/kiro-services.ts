import { createHash } from "node:crypto";
import { hostname } from "node:os";
import type { ErrorSource } from "../../errors.js";
import { readJsonAnswer, send } from "../../http/http-request.js";
import type { ResponseHeaders } from "../../http/response-headers.js";

// What Kiro's clients share: how they name themselves, and how they talk to the token services.

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

/** The JSON answer of a token service, whatever its status (their errors are JSON with an `error` code). */
export interface AuthAnswer {
  status: number;
  answer: Record<string, unknown>;
  text: string;
  headers: ResponseHeaders;
}

/** POSTs JSON to Kiro's or AWS's token services. Network failures are TransientError, as for any request. */
export async function authPost(
  source: ErrorSource,
  url: string,
  body: Record<string, unknown>,
  headers: Record<string, string>,
  signal?: AbortSignal,
): Promise<AuthAnswer> {
  const res = await send(source, url, { headers: { accept: "application/json", ...headers }, body, signal });
  const { status, json, text } = await readJsonAnswer(res, signal);
  return { status, answer: isObject(json) ? json : {}, text, headers: res.headers };
}
