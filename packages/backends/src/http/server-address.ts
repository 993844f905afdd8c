import type { ServerAddress } from "../backend.js";

const DEFAULT_PORTS: Readonly<Record<string, number>> = { "http:": 80, "https:": 443 };

/** A URL's host and port alone, or undefined when it is not an http(s) URL. */
export function serverOf(base: string): ServerAddress | undefined {
  if (base === "") return undefined;
  let url: URL;
  try {
    url = new URL(base);
  } catch {
    return undefined;
  }
  const port = url.port === "" ? DEFAULT_PORTS[url.protocol] : Number(url.port);
  if (port === undefined || url.hostname === "") return undefined;
  // An IPv6 literal's brackets belong to the URL, not to the address.
  return { address: url.hostname.replace(/^\[(.*)\]$/, "$1"), port };
}
