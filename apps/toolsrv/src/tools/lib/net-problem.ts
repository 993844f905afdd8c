import { connect } from "node:net";
import { ToolError } from "./tool-io.js";

/** Error codes with which the sandbox's seccomp filter refuses an Internet socket when the network is off. */
const NO_SOCKET = new Set(["EPERM", "EAFNOSUPPORT"]);

/**
 * Why a request got no answer, worded for the model and naming the URL: the sandbox's refusal (no network
 * at all, or a port the policy does not grant), DNS, a refused or broken connection, TLS, or the time limit.
 */
export async function netProblem(error: unknown, url: URL, signal: AbortSignal, seconds: number) {
  const say = (cause: string) => new ToolError(`${url.href}: ${cause}`);
  if (signal.aborted) return say(`no answer within ${seconds} s`);
  const cause = ((error as Error).cause ?? error) as NodeJS.ErrnoException;
  const code = cause.code ?? "";
  const port = url.port || (url.protocol === "https:" ? "443" : "80");
  const place = `${url.hostname}:${port}`;
  if (NO_SOCKET.has(code)) return say(noNetwork);
  if (code === "EACCES")
    return say(
      `the sandbox does not allow this session to connect to TCP port ${port} (its policy's network.connect_tcp)`,
    );
  // With the network off, name resolution fails first, as a temporary failure: see whether it is the sandbox.
  if (code === "EAI_AGAIN")
    return say(
      (await networkOff()) ? noNetwork : `could not resolve ${url.hostname} (DNS failed: EAI_AGAIN)`,
    );
  if (code === "ENOTFOUND") return say(`no such host: ${url.hostname} (DNS lookup failed)`);
  if (code === "ECONNREFUSED") return say(`connection refused by ${place} (nothing listens there)`);
  if (code === "ECONNRESET" || code === "UND_ERR_SOCKET")
    return say(`${place} closed the connection before answering`);
  if (code === "ETIMEDOUT" || code === "UND_ERR_CONNECT_TIMEOUT")
    return say(`connecting to ${place} timed out`);
  if (code === "EHOSTUNREACH" || code === "ENETUNREACH") return say(`${place} is unreachable (${code})`);
  // The Fetch standard refuses some ports outright (SMTP's, IRC's…), before any connection.
  if ((error as Error).message === "bad port" || cause.message === "bad port")
    return say(`fetch refuses port ${port} (one the Fetch standard blocks)`);
  if (/CERT|TLS|SSL/.test(code)) return say(`TLS failed: ${cause.message}`);
  return say(cause.message || String(error));
}

const noNetwork = "the sandbox allows no network for this session (its policy's network.enabled is false)";

/** Whether this process may open an Internet socket at all: the sandbox refuses it when the network is off. */
function networkOff(): Promise<boolean> {
  return new Promise((resolve) => {
    // The loopback discard port: whatever answers (refused, not granted, accepted), a socket was opened.
    const socket = connect({ host: "127.0.0.1", port: 9 });
    const done = (off: boolean) => {
      socket.destroy();
      resolve(off);
    };
    socket.once("connect", () => done(false));
    socket.once("error", (e: NodeJS.ErrnoException) => done(NO_SOCKET.has(e.code ?? "")));
    socket.setTimeout(2000, () => done(false));
  });
}
