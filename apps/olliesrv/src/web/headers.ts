import type { MiddlewareHandler } from "hono";

/**
 * What every answer carries. The pages run one script of this server's and no inline one, load nothing from
 * elsewhere, and put markup into the page only through the one Trusted Types policy of that script; nothing is
 * cached, since every page shows live state and some say what an agent is doing.
 */
export const CONTENT_SECURITY_POLICY = [
  "default-src 'none'",
  "script-src 'self'",
  "style-src 'self'",
  "img-src 'self'",
  "connect-src 'self'",
  "form-action 'self'",
  "frame-ancestors 'none'",
  "base-uri 'none'",
  "require-trusted-types-for 'script'",
  "trusted-types ollie",
].join("; ");

export function securityHeaders(): MiddlewareHandler {
  return async (c, next) => {
    await next();
    c.header("Content-Security-Policy", CONTENT_SECURITY_POLICY);
    c.header("X-Content-Type-Options", "nosniff");
    c.header("Referrer-Policy", "no-referrer");
    c.header("Cross-Origin-Opener-Policy", "same-origin");
    c.header("Cross-Origin-Resource-Policy", "same-origin");
    c.header("X-Frame-Options", "DENY");
    if (!c.res.headers.has("Cache-Control")) c.header("Cache-Control", "no-store");
  };
}
