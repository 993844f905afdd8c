import { setTimeout as sleep } from "node:timers/promises";
import { credentialStoreFile, readStoredCredential, storeCredential } from "../../config/credential-store.js";
import { TransientError } from "../../errors.js";
import { readText, send } from "../../http/http-request.js";
import { type DeviceCode, LoginError } from "../device-login.js";
import { COPILOT_CLIENT_ID, COPILOT_HEADERS, githubHost } from "./copilot-headers.js";
import { COPILOT_STORE_KEY, findPluginToken, type StoredGithubLogin } from "./github-token.js";

export interface CopilotLoginOptions {
  /** https://github.com (default) or a GitHub Enterprise Cloud URL. */
  githubUrl?: string;
  clientId?: string;
  /** Shown the code to enter and where; called once, before polling starts. */
  onCode: (code: DeviceCode) => void;
  signal?: AbortSignal;
  /** Ollie's credential file, when not the default. */
  storeFile?: string;
  env?: NodeJS.ProcessEnv;
}

/** Where a login was stored. */
export interface StoredLogin {
  host: string;
  file: string;
}

const SOURCE = { provider: "copilot" };
const DEVICE_GRANT = "urn:ietf:params:oauth:grant-type:device_code";

/** POSTs the fields as JSON (GitHub takes JSON or a form) and reads the JSON answer, whatever its status. */
async function post(url: string, fields: Record<string, string>, signal?: AbortSignal) {
  const res = await send(SOURCE, url, {
    headers: { accept: "application/json", "user-agent": COPILOT_HEADERS["user-agent"]! },
    body: fields,
    signal,
  });
  const text = await readText(res.body, signal);
  let answer: Record<string, unknown> = {};
  try {
    answer = JSON.parse(text) as Record<string, unknown>;
  } catch {
    // Not JSON: reported below with the status.
  }
  if (res.status >= 500) throw new TransientError({ ...SOURCE, status: res.status, providerMessage: text });
  return { status: res.status, answer, text };
}

/**
 * Signs in to GitHub with the OAuth device flow (RFC 8628) as Copilot's editor plugins do: asks for a code,
 * has `onCode` show it, polls at the interval GitHub asks for (slower when told to slow down) until the
 * user has entered it, the code expires or `signal` aborts; then stores the GitHub token in Ollie's
 * credential file (0600) for the GitHub host.
 */
export async function loginCopilot(options: CopilotLoginOptions): Promise<StoredLogin> {
  const githubUrl = (options.githubUrl ?? "https://github.com").replace(/\/+$/, "");
  const clientId = options.clientId ?? COPILOT_CLIENT_ID;
  const { signal } = options;
  const start = await post(
    `${githubUrl}/login/device/code`,
    { client_id: clientId, scope: "read:user" },
    signal,
  );
  const { device_code, user_code, verification_uri, expires_in, interval } = start.answer;
  if (
    typeof device_code !== "string" ||
    typeof user_code !== "string" ||
    typeof verification_uri !== "string"
  )
    throw new LoginError("unexpected", `GitHub did not start the login (${start.status}): ${start.text}`);
  const lifetime = typeof expires_in === "number" ? expires_in : 900;
  options.onCode({ userCode: user_code, verificationUri: verification_uri, expiresInSeconds: lifetime });
  const deadline = Date.now() + lifetime * 1000;
  let waitMs = (typeof interval === "number" ? interval : 5) * 1000;
  for (;;) {
    await sleep(waitMs, undefined, { signal });
    if (Date.now() > deadline)
      throw new LoginError("expired_token", "the code expired before it was entered");
    const poll = await post(
      `${githubUrl}/login/oauth/access_token`,
      { client_id: clientId, device_code, grant_type: DEVICE_GRANT },
      signal,
    );
    const { access_token: token, error, error_description: why, interval: asked } = poll.answer;
    if (typeof token === "string" && token !== "") {
      const file = options.storeFile ?? credentialStoreFile(options.env);
      await storeGithubLogin(file, githubHost(githubUrl), { githubToken: token, source: "device flow" });
      return { host: githubHost(githubUrl), file };
    }
    if (error === "authorization_pending") continue;
    if (error === "slow_down") {
      // RFC 8628 §3.5: the new interval, else five seconds more.
      waitMs = typeof asked === "number" ? asked * 1000 : waitMs + 5000;
      continue;
    }
    const code = typeof error === "string" ? error : "unexpected";
    throw new LoginError(code, `GitHub ended the login: ${typeof why === "string" ? why : code}`);
  }
}

/**
 * Copies the GitHub token an official Copilot plugin stored (`github-copilot/apps.json` or `hosts.json`)
 * into Ollie's credential file; undefined when no plugin has one for the host.
 */
export async function importCopilotLogin(
  options: { githubUrl?: string; storeFile?: string; env?: NodeJS.ProcessEnv } = {},
): Promise<(StoredLogin & { from: string }) | undefined> {
  const host = githubHost(options.githubUrl ?? "https://github.com");
  const found = await findPluginToken(host, options.env);
  if (!found) return undefined;
  const file = options.storeFile ?? credentialStoreFile(options.env);
  await storeGithubLogin(file, host, {
    githubToken: found.token,
    source: found.from,
    ...(found.user !== undefined && { user: found.user }),
  });
  return { host, file, from: found.from };
}

async function storeGithubLogin(file: string, host: string, login: StoredGithubLogin): Promise<void> {
  const hosts = ((await readStoredCredential(file, COPILOT_STORE_KEY)) ?? {}) as Record<string, unknown>;
  await storeCredential(file, COPILOT_STORE_KEY, { ...hosts, [host]: login });
}
