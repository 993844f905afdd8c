import { homedir } from "node:os";
import { dirname, join } from "node:path";
import {
  CredentialStoreError,
  credentialStoreFile,
  readJsonFile,
  readStoredCredential,
  storeCredential,
  writeJsonAtomic,
} from "../../config/credential-store.js";
import { AuthError, type BackendError, type ErrorSource } from "../../errors.js";
import { classifyError, errorFacts } from "../../http/classify.js";
import { askJson, type JsonAnswer } from "../../http/http-request.js";
import { SharedWork } from "../../http/shared-work.js";
import type { Warn } from "../../request/warn.js";
import { isObject, nonEmpty, oidcUrlOf } from "./kiro-services.js";

/** The key of the Kiro login in Ollie's credential file. */
export const KIRO_STORE_KEY = "kiro";

/**
 * A Kiro login as the IDE's `kiro-auth-token.json` and Ollie's credential store keep it (camelCase); other
 * fields are kept as they are when the file is written back.
 */
export interface KiroToken {
  accessToken?: string;
  refreshToken?: string;
  /** ISO-8601 UTC. */
  expiresAt?: string;
  /** "social" (Google/GitHub through Kiro's auth service) or "IdC" (Builder ID, IAM Identity Center). */
  authMethod?: string;
  provider?: string;
  /** The social account's profile, sent with its requests. */
  profileArn?: string;
  region?: string;
  /** IdC in the IDE: the client registration is `<clientIdHash>.json` beside the token file. */
  clientIdHash?: string;
  clientId?: string;
  clientSecret?: string;
  [field: string]: unknown;
}

/** What a request needs of the login. */
export interface KiroAccess {
  accessToken: string;
  /** Set for a social login that has one: only those requests carry `profileArn`. */
  profileArn?: string;
}

export interface KiroCredentialOptions {
  source: ErrorSource;
  /** One token file to use instead of looking in Ollie's credential store and then Kiro's cache. */
  tokenFile?: string;
  env?: NodeJS.ProcessEnv;
  /** The home whose `.aws/sso/cache` is looked in; `env.HOME` by default. */
  home?: string;
  /** Ollie's credential file; credentialStoreFile(env) by default. */
  storeFile?: string;
  /** Kiro's desktop auth service, which renews social logins. */
  authUrl: string;
  /** AWS SSO OIDC, which renews Builder ID / IdC logins; by default the one of the login's region. */
  oidcUrl?: string;
  region: string;
  /** The user agent of a social renewal (`KiroIDE-<version>-<machineId>`). */
  userAgent: string;
  now?: () => number;
  warn: Warn;
}

/** Renew this long before `expiresAt`, so a token does not run out during a long turn. */
const RENEW_MARGIN_MS = 5 * 60_000;
/** The lifetime of a renewed token when the answer does not say (every client assumes an hour). */
const DEFAULT_EXPIRES_IN_S = 3600;
export const SIGN_IN_AGAIN = "sign in again with `ollie login kiro` or in the Kiro IDE";
/** Where a login was read from, and so where its renewal is written. */
type LoginPlace = { kind: "store"; file: string } | { kind: "file"; file: string };

interface Login {
  token: KiroToken;
  place: LoginPlace;
  /** The IdC client registration, from the token itself or its `<clientIdHash>.json`. */
  clientId?: string;
  clientSecret?: string;
  /** Where the registration was looked for, for messages. */
  registrationFile?: string;
}

const isSocial = (login: Login) => {
  const method = nonEmpty(login.token.authMethod)?.toLowerCase();
  return method === undefined ? login.clientId === undefined : method === "social";
};

/**
 * The Kiro login of a backend: read on first use (Ollie's credential store entry "kiro", else the Kiro IDE's
 * `~/.aws/sso/cache/kiro-auth-token.json`, or only `tokenFile`), renewed when it expires within five
 * minutes or the API refuses it, and written back where it came from (atomically, other fields kept).
 * Concurrent requests share one renewal. A refresh token the service refused is not sent again: the next
 * request fails at once with the same AuthError, until the file holds a new login.
 */
export class KiroCredentials {
  // Private for real (#): tokens and client secrets must not show when a backend is inspected or logged.
  #login: Login | undefined;
  #refused: { refreshToken: string; error: AuthError } | undefined;
  /** The token a renewal replaces, for the renewal under way. */
  #stale: string | undefined;
  readonly #loading: SharedWork<Login>;
  readonly #renewal: SharedWork<Login>;
  private readonly now: () => number;

  constructor(private readonly options: KiroCredentialOptions) {
    this.now = options.now ?? Date.now;
    this.#loading = new SharedWork(options.source, "reading the Kiro login", () => this.load());
    this.#renewal = new SharedWork(options.source, "renewing the Kiro login", (signal) =>
      this.renewFromSource(this.#stale, signal),
    );
  }

  /** A token that is good for a while yet, renewing the login first when needed. */
  async access(signal?: AbortSignal): Promise<KiroAccess> {
    if (this.#login === undefined) {
      const loaded = await this.#loading.run(signal);
      // A renewal that finished while the file was read is newer.
      this.#login ??= loaded;
    }
    let login = this.#login;
    if (this.expiring(login)) login = await this.renewal(login.token.accessToken, signal);
    const profileArn = isSocial(login) ? nonEmpty(login.token.profileArn) : undefined;
    return { accessToken: login.token.accessToken!, ...(profileArn !== undefined && { profileArn }) };
  }

  /** Renews the login after the API refused `refusedToken` (nothing to do if it was renewed since). */
  async renew(refusedToken: string | undefined, signal?: AbortSignal): Promise<void> {
    if (this.#login !== undefined && this.#login.token.accessToken !== refusedToken) return;
    await this.renewal(refusedToken, signal);
  }

  private expiring(login: Login): boolean {
    if (nonEmpty(login.token.accessToken) === undefined) return true;
    const expiresAt = Date.parse(nonEmpty(login.token.expiresAt) ?? "");
    // Without a readable expiry the token is used until the API refuses it.
    return !Number.isNaN(expiresAt) && expiresAt - this.now() < RENEW_MARGIN_MS;
  }

  /** One renewal at a time, shared by the requests that need it; none of them can call it off. */
  private renewal(stale: string | undefined, signal?: AbortSignal): Promise<Login> {
    this.#stale = stale;
    return this.#renewal.run(signal);
  }

  private async renewFromSource(stale: string | undefined, signal: AbortSignal): Promise<Login> {
    // The IDE (or another Ollie) may have renewed the login since it was read: then its token is good, and
    // the refresh token held in memory may already be spent.
    const latest = await this.load();
    if (latest.token.accessToken !== stale && !this.expiring(latest)) {
      this.#login = latest;
      return latest;
    }
    const refreshToken = nonEmpty(latest.token.refreshToken);
    if (refreshToken === undefined)
      throw this.authError(`${where(latest)} holds no refresh token to renew the login: ${SIGN_IN_AGAIN}`);
    if (this.#refused?.refreshToken === refreshToken) throw this.#refused.error;
    let answer: Record<string, unknown>;
    try {
      answer = await this.exchange(latest, refreshToken, signal);
    } catch (err) {
      // Another program renewing the same login at the same moment may have spent this refresh token
      // and saved the login it got: that one is good.
      const saved = await this.load().catch(() => undefined);
      if (saved && saved.token.refreshToken !== refreshToken && !this.expiring(saved)) {
        this.#login = saved;
        return saved;
      }
      throw err;
    }
    const accessToken = nonEmpty(answer.accessToken);
    if (accessToken === undefined)
      throw this.authError(`the Kiro token service answered without an access token: ${SIGN_IN_AGAIN}`);
    const expiresIn = typeof answer.expiresIn === "number" ? answer.expiresIn : DEFAULT_EXPIRES_IN_S;
    const profileArn = nonEmpty(answer.profileArn);
    const renewed: KiroToken = {
      accessToken,
      // The services may keep the refresh token and not send it again.
      refreshToken: nonEmpty(answer.refreshToken) ?? refreshToken,
      expiresAt: new Date(this.now() + expiresIn * 1000).toISOString(),
      ...(profileArn !== undefined && { profileArn }),
    };
    const login = { ...latest, token: { ...latest.token, ...renewed } };
    this.#login = login;
    await this.save(login.place, renewed);
    return login;
  }

  /** Asks Kiro's auth service (social logins) or AWS SSO OIDC (Builder ID, IdC) for a new access token. */
  private async exchange(login: Login, refreshToken: string, signal: AbortSignal) {
    const { source, authUrl, userAgent } = this.options;
    let res: JsonAnswer;
    if (isSocial(login)) {
      res = await askJson(source, `${authUrl}/refreshToken`, {
        body: { refreshToken },
        headers: { accept: "application/json, text/plain, */*", "user-agent": userAgent },
        signal,
      });
    } else {
      const { clientId, clientSecret } = login;
      if (clientId === undefined || clientSecret === undefined)
        throw this.authError(
          `the Builder ID / IAM Identity Center login in ${where(login)} has no client registration (clientId, clientSecret${login.registrationFile ? `; looked in ${login.registrationFile}` : ""}): ${SIGN_IN_AGAIN}`,
        );
      const region = nonEmpty(login.token.region) ?? this.options.region;
      res = await askJson(source, `${this.options.oidcUrl ?? oidcUrlOf(region)}/token`, {
        body: { clientId, clientSecret, grantType: "refresh_token", refreshToken },
        signal,
      });
    }
    if (res.status === 200) return res.fields;
    throw this.refusal(res, refreshToken);
  }

  /** Why a renewal failed: the service's trouble is retryable; a refused refresh token means signing in again. */
  private refusal(res: JsonAnswer, refreshToken: string): BackendError {
    const { status, fields: answer, text, headers } = res;
    if (status === 408 || status === 429 || status >= 500)
      return classifyError(this.options.source, status, errorFacts(answer, text.trim()), headers);
    const code = nonEmpty(answer.error) ?? nonEmpty(answer.__type) ?? "";
    const detail =
      nonEmpty(answer.error_description) ?? nonEmpty(answer.message) ?? text.trim().slice(0, 200);
    // No status: the request that failed is the renewal, not the chat the error is reported for.
    const error = this.authError(
      `the Kiro login could not be renewed (token service ${status}${code && ` ${code}`}: ${detail}): ${SIGN_IN_AGAIN}`,
    );
    this.#refused = { refreshToken, error };
    return error;
  }

  /** Writes the renewed fields back over what the file holds now. A failure is told, not thrown: the token works. */
  private async save(place: LoginPlace, renewed: KiroToken): Promise<void> {
    try {
      if (place.kind === "store") {
        const current = await readStoredCredential(place.file, KIRO_STORE_KEY);
        await storeCredential(place.file, KIRO_STORE_KEY, { ...(isObject(current) && current), ...renewed });
      } else {
        const current = await readJsonFile(place.file);
        await writeJsonAtomic(place.file, { ...(isObject(current) && current), ...renewed });
      }
    } catch (err) {
      this.options.warn(
        `the renewed Kiro token could not be saved to ${place.file}: ${(err as Error).message}`,
      );
    }
  }

  private async load(): Promise<Login> {
    const { tokenFile, env = process.env } = this.options;
    try {
      if (tokenFile !== undefined) {
        const login = await this.fromFile(tokenFile);
        if (login) return login;
        throw this.authError(`no Kiro login in ${tokenFile} (the configured token file)`);
      }
      const store = this.options.storeFile ?? credentialStoreFile(env);
      const stored = await readStoredCredential(store, KIRO_STORE_KEY);
      if (isObject(stored)) return this.withRegistration(stored, { kind: "store", file: store });
      const ide = join(
        this.options.home ?? (env.HOME || homedir()),
        ".aws",
        "sso",
        "cache",
        "kiro-auth-token.json",
      );
      const login = await this.fromFile(ide);
      if (login) return login;
      throw this.authError(
        `no Kiro login: run \`ollie login kiro\` or sign in to the Kiro IDE (looked in ${store} and ${ide})`,
      );
    } catch (err) {
      if (err instanceof CredentialStoreError) throw this.authError(err.message);
      throw err;
    }
  }

  private async fromFile(file: string): Promise<Login | undefined> {
    const token = await readJsonFile(file);
    if (token === undefined) return undefined;
    if (!isObject(token)) throw this.authError(`${file} is not a Kiro token file (not a JSON object)`);
    return this.withRegistration(token, { kind: "file", file });
  }

  /** The login with its IdC client registration: in the token, else in `<clientIdHash>.json` beside the file. */
  private async withRegistration(token: KiroToken, place: LoginPlace): Promise<Login> {
    if (nonEmpty(token.accessToken) === undefined && nonEmpty(token.refreshToken) === undefined)
      throw this.authError(`${place.file} holds no Kiro token (accessToken, refreshToken): ${SIGN_IN_AGAIN}`);
    const login: Login = { token, place };
    let registration: Record<string, unknown> = token;
    const hash = nonEmpty(token.clientIdHash);
    if (nonEmpty(token.clientId) === undefined && hash !== undefined && place.kind === "file") {
      login.registrationFile = join(dirname(place.file), `${hash}.json`);
      const found = await readJsonFile(login.registrationFile);
      registration = isObject(found) ? found : {};
    }
    const clientId = nonEmpty(registration.clientId);
    const clientSecret = nonEmpty(registration.clientSecret);
    if (clientId !== undefined) login.clientId = clientId;
    if (clientSecret !== undefined) login.clientSecret = clientSecret;
    return login;
  }

  private authError(providerMessage: string): AuthError {
    return new AuthError({ ...this.options.source, providerMessage });
  }
}

const where = (login: Login) =>
  login.place.kind === "store" ? `Ollie's credential file ${login.place.file}` : login.place.file;
