import { createHash, randomBytes, timingSafeEqual } from "node:crypto";

/**
 * The secrets of one `ollie web`: the token its URL carries (what a person is given), the value of the
 * cookie a browser is given for it, and the form token that proves a request came from one of its pages.
 * Made anew each start, kept nowhere: a restart makes every old link and cookie worthless.
 */
export class WebAccess {
  readonly token: string;
  readonly cookieValue: string;
  readonly formToken: string;
  /** Cookies are not kept apart by port: the port in the name keeps two `ollie web`s from clashing. */
  readonly cookieName: string;

  constructor(port: number, token = randomBytes(32).toString("base64url")) {
    this.token = token;
    this.cookieValue = randomBytes(32).toString("base64url");
    this.formToken = randomBytes(24).toString("base64url");
    this.cookieName = `ollie_web_${port}`;
  }

  isToken(given: string | undefined): boolean {
    return sameSecret(given, this.token);
  }

  isCookie(given: string | undefined): boolean {
    return sameSecret(given, this.cookieValue);
  }

  isFormToken(given: string | undefined): boolean {
    return sameSecret(given, this.formToken);
  }
}

/** Compares in constant time, by digest, so neither the length nor a prefix of the secret leaks. */
function sameSecret(given: string | undefined, secret: string): boolean {
  if (given === undefined) return false;
  const digest = (text: string) => createHash("sha256").update(text).digest();
  return timingSafeEqual(digest(given), digest(secret));
}
