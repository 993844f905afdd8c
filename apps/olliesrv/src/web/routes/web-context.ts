import type { WebAccess } from "../auth/access.js";
import type { DaemonLink } from "../daemon-link.js";
import type { Streams } from "../live/streams.js";

/** What every route is given. */
export interface WebContext {
  link: DaemonLink;
  access: WebAccess;
  streams: Streams;
  /** The directory a new session is made in unless the form names another. */
  defaultCwd: string;
}
