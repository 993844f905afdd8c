import type { BackendsConf, Profile } from "@ollie/backends";

/** Headers whose values are credentials (`Authorization`, `x-api-key`, …). */
const CREDENTIAL_HEADER = /authorization|key|token|secret/i;

/** Query parameters that carry credentials: the names @ollie/backends hides in the URLs it shows. */
const CREDENTIAL_PARAM = /^(key|api[-_]?key|token|access[-_]?token|auth|password|secret|sig|signature)$/i;

/**
 * The backend credentials olliesrv holds without running anything, for the log to hide: literal keys, the
 * values of the variables `key_env` names, credential headers' values (with and without their scheme, as in
 * `Bearer …`), and what a profile's URL carries — a password, or a user name standing alone as tokens do,
 * and credential query parameters. What a `key_cmd` prints is not known until the backend is first used.
 */
export function backendSecrets(conf: BackendsConf, env: NodeJS.ProcessEnv): string[] {
  const secrets: string[] = [];
  for (const profile of conf.profiles.values()) {
    const credential = profile.credential;
    if (credential.kind === "literal") secrets.push(credential.value.reveal());
    const fromEnv = credential.kind === "env" ? env[credential.variable] : undefined;
    if (fromEnv) secrets.push(fromEnv);
    for (const [name, value] of Object.entries(profile.headers))
      if (CREDENTIAL_HEADER.test(name)) secrets.push(value, value.replace(/^\w+\s+/, ""));
    secrets.push(...urlSecrets(profile));
  }
  return secrets;
}

function urlSecrets(profile: Profile): string[] {
  if (profile.url === undefined) return [];
  let url: URL;
  try {
    url = new URL(profile.url);
  } catch {
    // backends.conf lets only http(s) URLs through; one the URL parser still refuses carries nothing found.
    return [];
  }
  const secrets: string[] = [];
  const userinfo = url.password || url.username;
  if (userinfo) secrets.push(userinfo);
  for (const [name, value] of url.searchParams) if (CREDENTIAL_PARAM.test(name)) secrets.push(value);
  return secrets.flatMap(spellings);
}

/** A URL part as written in backends.conf, decoded and encoded: a message may show any of them. */
function spellings(part: string): string[] {
  const all = [part, encodeURIComponent(part)];
  try {
    all.push(decodeURIComponent(part));
  } catch {
    // Not percent-encoded after all (a lone '%'): as written is how it shows.
  }
  return all;
}
