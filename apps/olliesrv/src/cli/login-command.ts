import {
  BackendError,
  type DeviceCode,
  importCopilotLogin,
  LoginError,
  loginCopilot,
  loginKiro,
  pluginTokenFiles,
} from "@ollie/backends";
import { oneLine } from "../one-line.js";
import { LOGIN_USAGE, type LoginInvocation } from "./login-args.js";
import { nextStep } from "./login-next-step.js";

/** The longest a failure's line gets: a provider's error can be a whole web page. */
const PROBLEM_MAX = 300;

type Signing = Exclude<LoginInvocation, { provider: undefined }>;

/**
 * `ollie login copilot|kiro`: a device-flow sign-in — the code and the page to enter it on go to stderr,
 * then it waits for the provider — that leaves the token in Ollie's credential file, where olliesrv finds
 * it; olliesrv need not run. 0 signed in, 1 failed (the code expired, the sign-in was refused, the network),
 * 130 cancelled with Ctrl-C (nothing stored).
 */
export async function loginCommand(invocation: LoginInvocation): Promise<number> {
  if (invocation.provider === undefined) {
    process.stdout.write(LOGIN_USAGE);
    return 0;
  }
  const cancel = new AbortController();
  const onInterrupt = () => cancel.abort();
  process.on("SIGINT", onInterrupt);
  try {
    const done =
      invocation.provider === "copilot"
        ? await copilot(invocation, cancel.signal)
        : await kiro(invocation, cancel.signal);
    process.stdout.write(`${done}\n${await nextStep(invocation)}\n`);
    return 0;
  } catch (error) {
    if (cancel.signal.aborted) {
      process.stderr.write(`\nollie: login ${invocation.provider} cancelled: nothing was stored\n`);
      return 130;
    }
    process.stderr.write(`ollie: login ${invocation.provider}: ${problem(invocation, error)}\n`);
    return 1;
  } finally {
    process.off("SIGINT", onInterrupt);
  }
}

/** Signs in to GitHub, or copies a Copilot plugin's token; says where the token went. */
async function copilot(invocation: Extract<Signing, { provider: "copilot" }>, signal: AbortSignal) {
  const githubUrl = invocation.githubUrl;
  if (!invocation.fromPlugin) {
    const login = await loginCopilot({
      ...(githubUrl !== undefined && { githubUrl }),
      onCode: showCode,
      signal,
    });
    return `signed in to ${login.host}: the GitHub token is kept in ${login.file} (readable by you alone)`;
  }
  const copied = await importCopilotLogin({ ...(githubUrl !== undefined && { githubUrl }) });
  if (copied)
    return `copied the GitHub token for ${copied.host} from ${copied.from} to ${copied.file} (readable by you alone)`;
  throw new Error(
    `no Copilot editor plugin has a GitHub token for ${new URL(githubUrl ?? "https://github.com").host} ` +
      `(looked in ${pluginTokenFiles().join(" and ")}): 'ollie login copilot' signs in with a code instead`,
  );
}

/** Signs in to Kiro with a Builder ID, or IAM Identity Center; says where the token went. */
async function kiro(invocation: Extract<Signing, { provider: "kiro" }>, signal: AbortSignal) {
  const { startUrl, region, oidcUrl } = invocation;
  const { file, login } = await loginKiro({
    ...(startUrl !== undefined && { startUrl }),
    ...(region !== undefined && { region }),
    ...(oidcUrl !== undefined && { oidcUrl }),
    onCode: showCode,
    signal,
  });
  const how =
    login.provider === "BuilderId" ? "an AWS Builder ID" : `IAM Identity Center (${login.startUrl})`;
  return `signed in to Kiro with ${how} in ${login.region}: the token is kept in ${file} (readable by you alone)`;
}

/** Tells the user where to enter the code, on stderr: stdout has only the outcome. */
function showCode(code: DeviceCode): void {
  const complete = code.verificationUriComplete;
  process.stderr.write(
    `Open ${code.verificationUri} and enter ${code.userCode} (the code expires in ${duration(code.expiresInSeconds)})\n` +
      (complete && complete !== code.verificationUri
        ? `  (or open ${complete}, which has the code filled in)\n`
        : "") +
      "waiting for it to be entered… (Ctrl-C cancels)\n",
  );
}

function duration(seconds: number): string {
  return seconds < 120 ? `${Math.round(seconds)} seconds` : `${Math.round(seconds / 60)} minutes`;
}

/** Why the login failed, on one line, with what to do when that is not plain. */
function problem(invocation: Signing, error: unknown): string {
  let why: string;
  if (error instanceof BackendError)
    why = `${error.status === undefined ? "" : `${error.status}: `}${error.providerMessage}`;
  else why = error instanceof Error ? error.message : String(error);
  // Kiro's message says so already.
  if (error instanceof LoginError && error.code === "expired_token" && invocation.provider === "copilot")
    why = `${why.replace(/\.$/, "")}; 'ollie login ${invocation.provider}' gives a new code`;
  return oneLine(why, PROBLEM_MAX);
}
