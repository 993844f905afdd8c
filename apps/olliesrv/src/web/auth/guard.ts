import type { Context, MiddlewareHandler } from "hono";
import { getCookie, setCookie } from "hono/cookie";
import type { WebAccess } from "./access.js";

/** Where the server listens, as the guard checks requests against it. */
export interface Listening {
  host: string;
  port: number;
}

/**
 * The Host headers a browser on this machine sends to a loopback listener (the name `localhost` for the
 * addresses it stands for); undefined for a listener beyond loopback.
 */
function loopbackHosts(host: string, port: number): Set<string> | undefined {
  if (host === "localhost") return new Set([`localhost:${port}`, `127.0.0.1:${port}`, `[::1]:${port}`]);
  if (host === "::1") return new Set([`[::1]:${port}`, `localhost:${port}`]);
  if (host === "127.0.0.1") return new Set([`127.0.0.1:${port}`, `localhost:${port}`]);
  if (host.startsWith("127.")) return new Set([`${host}:${port}`]);
  return undefined;
}

/**
 * Every request passes three checks, in order:
 *
 * 1. On a loopback listener, the Host header must name the address it listens on (421 otherwise): a page of
 *    another site whose name was pointed at that address (DNS rebinding) is not served at all.
 * 2. It must carry the token — `?token=` (which is traded for a cookie and dropped from the address),
 *    `Authorization: Bearer`, or the cookie — else 401.
 * 3. A request that changes something (any method but GET and HEAD) authenticated by the cookie must come
 *    from one of this server's pages: its Origin (else `Sec-Fetch-Site`) says so, and it carries the form
 *    token the pages hold (a `csrf` field or an `X-CSRF-Token` header); else 403. One with the bearer token
 *    is a script's, which no other site can make a browser send.
 */
export function guard(access: WebAccess, listening: Listening): MiddlewareHandler {
  const loopback = loopbackHosts(listening.host, listening.port);
  return async (c, next) => {
    const host = c.req.header("host") ?? "";
    if (loopback && !loopback.has(host.toLowerCase()))
      return c.text(`ollie web answers only to ${[...loopback].join(", ")}\n`, 421);
    const url = new URL(c.req.url);
    const given = url.searchParams.get("token");
    if (given !== null && (c.req.method === "GET" || c.req.method === "HEAD")) {
      if (!access.isToken(given)) return refused(c);
      setCookie(c, access.cookieName, access.cookieValue, {
        httpOnly: true,
        sameSite: "Strict",
        path: "/",
      });
      url.searchParams.delete("token");
      // Off the address bar and out of the history: the cookie stands for it from here on. Leading slashes
      // become one: `//host/x` would be another site's address.
      return c.redirect(`${url.pathname.replace(/^\/+/, "/")}${url.search}`, 303);
    }
    const bearer = /^Bearer (.+)$/.exec(c.req.header("authorization") ?? "")?.[1];
    if (bearer !== undefined) {
      if (!access.isToken(bearer)) return refused(c);
      return next();
    }
    if (!access.isCookie(getCookie(c, access.cookieName))) return refused(c);
    if (c.req.method !== "GET" && c.req.method !== "HEAD" && !(await fromOurPage(c, access, host)))
      return c.text("refused: not sent from one of this ollie web's pages\n", 403);
    return next();
  };
}

async function fromOurPage(c: Context, access: WebAccess, host: string): Promise<boolean> {
  const origin = c.req.header("origin");
  const sameOrigin =
    origin !== undefined ? origin === `http://${host}` : c.req.header("sec-fetch-site") === "same-origin";
  if (!sameOrigin) return false;
  const header = c.req.header("x-csrf-token");
  if (header !== undefined) return access.isFormToken(header);
  const type = c.req.header("content-type") ?? "";
  if (!type.startsWith("application/x-www-form-urlencoded") && !type.startsWith("multipart/form-data"))
    return false;
  const field = (await c.req.parseBody())["csrf"];
  return access.isFormToken(typeof field === "string" ? field : undefined);
}

function refused(c: Context): Response {
  return c.text(
    "401: this page needs the address `ollie web` printed (with its token); open that one.\n",
    401,
  );
}
