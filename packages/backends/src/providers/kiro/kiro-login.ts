import { credentialStoreFile, readStoredCredential, storeCredential } from "../../config/credential-store.js";
import { TransientError } from "../../errors.js";
import { askJson, type JsonAnswer } from "../../http/http-request.js";
import {
  codeExpired,
  type DeviceCode,
  LoginError,
  type PollAnswer,
  pollDeviceToken,
} from "../device-login.js";
import { KIRO_STORE_KEY, type KiroToken } from "./kiro-credentials.js";
import { isObject, nonEmpty, oidcUrlOf } from "./kiro-services.js";

export interface KiroLoginOptions {
  /** Told what to show: the code to enter, the page to enter it on, and that page with the code filled in. */
  onCode: (code: DeviceCode) => void;
  signal?: AbortSignal;
  /** The region of the SSO OIDC service (default us-east-1). */
  region?: string;
  /** AWS SSO OIDC, https://oidc.REGION.amazonaws.com by default. */
  oidcUrl?: string;
  /** AWS Builder ID's start page by default; an IAM Identity Center user gives their organisation's. */
  startUrl?: string;
  /** What `slow_down` adds to the polling interval, in seconds (RFC 8628: 5). */
  slowDownSeconds?: number;
  /** Ollie's credential file, when not the default. */
  storeFile?: string;
  env?: NodeJS.ProcessEnv;
}

/** A Builder ID / IdC login as `ollie login kiro` stores it: Kiro's token file fields plus the registration. */
export interface KiroLogin extends KiroToken {
  accessToken: string;
  refreshToken: string;
  expiresAt: string;
  authMethod: "IdC";
  region: string;
  startUrl: string;
  clientId: string;
  clientSecret: string;
  /** When the client registration runs out (it is used again until a day before). */
  clientSecretExpiresAt?: string;
}

const SOURCE = { provider: "kiro" };
const LOGIN_COMMAND = "ollie login kiro";
const BUILDER_ID_START = "https://view.awsapps.com/start";
const DEVICE_GRANT = "urn:ietf:params:oauth:grant-type:device_code";
const SCOPES = ["codewhisperer:completions", "codewhisperer:analysis", "codewhisperer:conversations"];
const DAY_MS = 86_400_000;
/** The SDK's exception names for the device flow's OAuth error codes (the JSON may carry either). */
const EXCEPTION_CODES: Record<string, string> = {
  AuthorizationPendingException: "authorization_pending",
  SlowDownException: "slow_down",
  ExpiredTokenException: "expired_token",
  AccessDeniedException: "access_denied",
};

/** The OAuth error code of an answer: `error`, or the AWS exception name mapped to one. */
function errorCode(res: JsonAnswer): string | undefined {
  const type = nonEmpty(res.fields.__type)?.replace(/^.*#/, "");
  return nonEmpty(res.fields.error) ?? (type && EXCEPTION_CODES[type]) ?? type;
}

/** The service's own trouble (5xx), which asking again may get past. */
const serviceTrouble = (res: JsonAnswer, what: string) =>
  new TransientError({ ...SOURCE, status: res.status, providerMessage: `${what}: ${res.text}` });

/** An answer that ends the login, with the service's explanation. */
function refusal(res: JsonAnswer, what: string): LoginError {
  const code = errorCode(res) ?? "unexpected";
  const detail =
    nonEmpty(res.fields.error_description) ?? nonEmpty(res.fields.message) ?? res.text.slice(0, 200);
  return new LoginError(code, `${what} (${res.status} ${code}): ${detail}`);
}

/** An answer that is not the success expected: the service's trouble is retryable, the rest ends the login. */
const failure = (res: JsonAnswer, what: string): Error =>
  res.status >= 500 ? serviceTrouble(res, what) : refusal(res, what);

/** The tokens a granted device-code poll hands out. */
type GrantedTokens = Pick<KiroLogin, "accessToken" | "refreshToken" | "expiresAt">;

/** What a device-code poll of SSO OIDC's /token means (AWS answers pending and refusals with 400). */
function pollAnswer(poll: JsonAnswer): PollAnswer<GrantedTokens> {
  const { accessToken, refreshToken, expiresIn } = poll.fields;
  if (poll.status === 200 && typeof accessToken === "string" && typeof refreshToken === "string") {
    const lifetime = typeof expiresIn === "number" ? expiresIn : 3600;
    const expiresAt = new Date(Date.now() + lifetime * 1000).toISOString();
    return { kind: "granted", value: { accessToken, refreshToken, expiresAt } };
  }
  if (poll.status >= 500)
    return { kind: "transient", error: serviceTrouble(poll, "AWS SSO OIDC failed a poll") };
  switch (errorCode(poll)) {
    case "authorization_pending":
      return { kind: "pending" };
    // AWS names no new interval: the poller adds the increment.
    case "slow_down":
      return { kind: "slow_down" };
    case "expired_token":
      return { kind: "failed", error: codeExpired(LOGIN_COMMAND) };
    case "access_denied":
      return {
        kind: "failed",
        error: new LoginError("access_denied", "the sign-in was refused (access_denied)"),
      };
  }
  return { kind: "failed", error: refusal(poll, "AWS SSO OIDC ended the sign-in") };
}

/** The client registration stored by an earlier login, when it is for the same service and still good. */
async function storedRegistration(file: string, region: string, startUrl: string) {
  const stored = await readStoredCredential(file, KIRO_STORE_KEY).catch(() => undefined);
  if (!isObject(stored) || stored.region !== region || stored.startUrl !== startUrl) return undefined;
  const clientId = nonEmpty(stored.clientId);
  const clientSecret = nonEmpty(stored.clientSecret);
  const until = Date.parse(nonEmpty(stored.clientSecretExpiresAt) ?? "");
  if (clientId === undefined || clientSecret === undefined || !(until - Date.now() > DAY_MS))
    return undefined;
  return { clientId, clientSecret, clientSecretExpiresAt: stored.clientSecretExpiresAt as string };
}

async function register(oidc: string, signal?: AbortSignal) {
  const res = await askJson(SOURCE, `${oidc}/client/register`, {
    body: {
      clientName: "Ollie",
      clientType: "public",
      scopes: SCOPES,
      grantTypes: [DEVICE_GRANT, "refresh_token"],
    },
    signal,
  });
  const { clientId, clientSecret, clientSecretExpiresAt } = res.fields;
  if (res.status !== 200 || typeof clientId !== "string" || typeof clientSecret !== "string")
    throw failure(res, "AWS SSO OIDC did not register Ollie as a client");
  return {
    clientId,
    clientSecret,
    ...(typeof clientSecretExpiresAt === "number" && {
      clientSecretExpiresAt: new Date(clientSecretExpiresAt * 1000).toISOString(),
    }),
  };
}

/**
 * Signs in to Kiro with AWS Builder ID (or IAM Identity Center) through the SSO OIDC device flow (B.3.4):
 * registers Ollie as a client (reusing a stored registration), asks for a code, has `onCode` show it, and
 * polls at the interval the service gives — slower after `slow_down` — until the user approves, the code
 * expires (`expired_token`), the user refuses (`access_denied`) or `signal` aborts. The login is stored in
 * Ollie's credential file under "kiro" (0600), where KiroBackend looks first, and returned.
 */
export async function loginKiro(options: KiroLoginOptions): Promise<{ file: string; login: KiroLogin }> {
  const { signal } = options;
  const region = options.region ?? "us-east-1";
  const oidc = (options.oidcUrl ?? oidcUrlOf(region)).replace(/\/+$/, "");
  const startUrl = options.startUrl ?? BUILDER_ID_START;
  const file = options.storeFile ?? credentialStoreFile(options.env);
  const client = (await storedRegistration(file, region, startUrl)) ?? (await register(oidc, signal));
  const { clientId, clientSecret } = client;

  const start = await askJson(SOURCE, `${oidc}/device_authorization`, {
    body: { clientId, clientSecret, startUrl },
    signal,
  });
  const { deviceCode, userCode, verificationUri, verificationUriComplete, expiresIn, interval } =
    start.fields;
  if (
    start.status !== 200 ||
    typeof deviceCode !== "string" ||
    typeof userCode !== "string" ||
    typeof verificationUri !== "string"
  )
    throw failure(start, "AWS SSO OIDC did not start the sign-in");
  const lifetime = typeof expiresIn === "number" ? expiresIn : 600;
  const complete = nonEmpty(verificationUriComplete);
  options.onCode({
    userCode,
    verificationUri,
    ...(complete !== undefined && { verificationUriComplete: complete }),
    expiresInSeconds: lifetime,
  });
  const tokens = await pollDeviceToken({
    intervalMs: (typeof interval === "number" ? interval : 5) * 1000,
    deadline: Date.now() + lifetime * 1000,
    command: LOGIN_COMMAND,
    slowDownIncrementMs: (options.slowDownSeconds ?? 5) * 1000,
    signal,
    poll: async () =>
      pollAnswer(
        await askJson(SOURCE, `${oidc}/token`, {
          body: { clientId, clientSecret, deviceCode, grantType: DEVICE_GRANT },
          signal,
        }),
      ),
  });
  const login: KiroLogin = {
    ...tokens,
    authMethod: "IdC",
    provider: startUrl === BUILDER_ID_START ? "BuilderId" : "Enterprise",
    region,
    startUrl,
    ...client,
  };
  await storeCredential(file, KIRO_STORE_KEY, login);
  return { file, login };
}
