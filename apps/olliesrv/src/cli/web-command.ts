import { randomBytes } from "node:crypto";
import { fileURLToPath } from "node:url";
import type { OllieClient } from "@ollie/client";

/** `ollie web [--listen HOST:PORT]`. */
export interface WebInvocation {
  command: "web";
  host: string;
  port: number;
}

const isLoopback = (host: string) => host.startsWith("127.") || host === "localhost" || host === "::1";

/**
 * An address of the loopback network of its own, 127.A.B.C, picked at random. Browsers keep cookies by host
 * name, not by port: on 127.0.0.1 the page's cookie would go to every other server there too (a development
 * server an agent started, say), which could then act with it. On an address of its own it goes nowhere else.
 */
export function ownLoopback(): string {
  const [a = 0, b = 0, c = 0] = randomBytes(3);
  return `127.${1 + (a % 254)}.${b}.${1 + (c % 254)}`;
}

/**
 * `--listen` takes `HOST:PORT`, `[IPv6]:PORT`, or a port alone (on a loopback address of its own, see
 * ownLoopback); 0 is any free port. Throws (a usage mistake) for anything else.
 */
export function parseListen(given: string | undefined): { host: string; port: number } {
  if (given === undefined) return { host: ownLoopback(), port: 0 };
  const match =
    /^(?:\[([0-9a-fA-F:]+)\]|([A-Za-z0-9.-]+)):(\d{1,5})$/.exec(given) ?? /^()()(\d{1,5})$/.exec(given);
  const port = Number(match?.[3]);
  if (!match || port > 65535) throw new Error(`--listen takes HOST:PORT or PORT, not '${given}'`);
  return { host: match[1] || match[2] || ownLoopback(), port };
}

/**
 * Serves the browser view until SIGINT or SIGTERM. It dials olliesrv (starting one, as every command does),
 * prints the address with its token, and dials again — without starting one — whenever olliesrv goes.
 */
export async function webCommand(
  invocation: WebInvocation,
  reachOrStart: () => Promise<OllieClient>,
  reach: () => Promise<OllieClient>,
): Promise<number> {
  const { DaemonLink } = await import("../web/daemon-link.js");
  const { startWeb } = await import("../web/web-server.js");
  const first = await reachOrStart();
  const link = new DaemonLink(reach);
  link.adopt(first);
  const server = await startWeb({
    link,
    host: invocation.host,
    port: invocation.port,
    defaultCwd: process.cwd(),
    // Beside the bundle this runs from (dist/): the page's script and style, built for browsers.
    staticDir: fileURLToPath(new URL("./web/", import.meta.url)),
  });
  if (!isLoopback(invocation.host))
    process.stderr.write(
      `ollie web: listening on ${invocation.host}:${server.port}, beyond this machine: anyone who can reach it ` +
        "and has the token acts as you (prompts, approvals, kills), over plain HTTP that others on the network " +
        "can read; browsers there allow no notifications. Prefer loopback and an SSH tunnel.\n",
    );
  process.stdout.write(`ollie web: ${server.url}\n`);
  await new Promise<void>((resolve) => {
    process.once("SIGINT", resolve);
    process.once("SIGTERM", resolve);
  });
  await server.close();
  link.close();
  return 0;
}
