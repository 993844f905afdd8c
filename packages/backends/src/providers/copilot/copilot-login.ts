import { credentialStoreFile, readStoredCredential, storeCredential } from "../../config/credential-store.js";
import { TransientError } from "../../errors.js";
import { askJson, type JsonAnswer } from "../../http/http-request.js";
import { type DeviceCode, LoginError, type PollAnswer, pollDeviceToken } from "../device-login.js";
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

/** POSTs the fields as JSON (GitHub takes JSON or a form) and reads the answer, whatever its status. */
const post = (url: string, fields: Record<string, string>, signal?: AbortSignal) =>
  askJson(SOURCE, url, { headers: { "user-agent": COPILOT_HEADERS["user-agent"]! }, body: fields, signal });

/** GitHub's own trouble, which asking again may get past. */
const serviceTrouble = (answer: JsonAnswer, what: string) =>
  new TransientError({ ...SOURCE, status: answer.status, providerMessage: `${what}: ${answer.text}` });

/** What a poll of the token endpoint means; GitHub answers pending and refusals alike with 200. */
function pollAnswer(poll: JsonAnswer): PollAnswer<string> {
  if (poll.status >= 500)
    return { kind: "transient", error: serviceTrouble(poll, "GitHub's token endpoint") };
  const { access_token: token, error, error_description: why, interval: asked } = poll.fields;
  if (typeof token === "string" && token !== "") return { kind: "granted", value: token };
  if (error === "authorization_pending") return { kind: "pending" };
  // RFC 8628 §3.5: GitHub names the new interval; without one the poller adds five seconds.
  if (error === "slow_down")
    return typeof asked === "number"
      ? { kind: "slow_down", intervalMs: asked * 1000 }
      : { kind: "slow_down" };
  const code = typeof error === "string" ? error : "unexpected";
  const detail = typeof why === "string" ? why : `${code} (${poll.status}): ${poll.text.slice(0, 200)}`;
  return { kind: "failed", error: new LoginError(code, `GitHub ended the login: ${detail}`) };
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
  if (start.status >= 500) throw serviceTrouble(start, "GitHub did not start the login");
  const { device_code, user_code, verification_uri, expires_in, interval } = start.fields;
  if (
    typeof device_code !== "string" ||
    typeof user_code !== "string" ||
    typeof verification_uri !== "string"
  )
    throw new LoginError("unexpected", `GitHub did not start the login (${start.status}): ${start.text}`);
  const lifetime = typeof expires_in === "number" ? expires_in : 900;
  options.onCode({ userCode: user_code, verificationUri: verification_uri, expiresInSeconds: lifetime });
  const token = await pollDeviceToken({
    intervalMs: (typeof interval === "number" ? interval : 5) * 1000,
    deadline: Date.now() + lifetime * 1000,
    command: "ollie login copilot",
    signal,
    poll: async () =>
      pollAnswer(
        await post(
          `${githubUrl}/login/oauth/access_token`,
          { client_id: clientId, device_code, grant_type: DEVICE_GRANT },
          signal,
        ),
      ),
  });
  const file = options.storeFile ?? credentialStoreFile(options.env);
  await storeGithubLogin(file, githubHost(githubUrl), { githubToken: token, source: "device flow" });
  return { host: githubHost(githubUrl), file };
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
