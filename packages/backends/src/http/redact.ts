/** Query parameters that carry credentials in providers' URLs (Gemini's `key`, proxies' `token`…). */
const SECRET_PARAMS = /^(key|api[-_]?key|token|access[-_]?token|auth|password|secret|sig|signature)$/i;

const HIDDEN = "***";
const USERINFO = /\/\/([^\s/@:]+)(:[^\s/@]*)?@/g;

const hideUserinfo = (text: string) =>
  text.replace(USERINFO, (_, user: string, pass?: string) =>
    pass ? `//${user}:${HIDDEN}@` : `//${HIDDEN}@`,
  );

/**
 * A URL fit to show: a password (or a user name standing alone, as tokens do) and credential-carrying query
 * parameters are replaced with `***`.
 */
export function redactUrl(url: string): string {
  let parsed: URL;
  try {
    parsed = new URL(url);
  } catch {
    return hideUserinfo(url);
  }
  if (parsed.password) parsed.password = HIDDEN;
  else if (parsed.username) parsed.username = HIDDEN;
  for (const name of [...parsed.searchParams.keys()]) {
    if (SECRET_PARAMS.test(name)) parsed.searchParams.set(name, HIDDEN);
  }
  return parsed.toString().replaceAll(encodeURIComponent(HIDDEN), HIDDEN);
}

/** Text with the credentials of every http(s) URL in it hidden (see redactUrl). */
export function redactText(text: string): string {
  return text.replace(/\bhttps?:\/\/[^\s'"<>]+/gi, redactUrl);
}
