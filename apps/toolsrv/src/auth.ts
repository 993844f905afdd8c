import { type AuthRefusal, hmacAuth, type ServerAuth } from "@ollie/ninep";
import type { ToolsrvKeys } from "./keys.js";

/** The line for a refusal in toolsrv's `audit` category; the uname and aname are the client's, so quoted. */
function auditLine(r: AuthRefusal): string {
  const aname = r.aname === "" ? "" : ` aname ${JSON.stringify(r.aname)}`;
  return `refused attach as ${JSON.stringify(r.uname)}${aname} from ${r.peer}: ${r.reason}`;
}

/**
 * hmacAuth over toolsrv's keys: the owner proves the owner key, everyone else the service key. The server
 * reports every refusal (no proof, an unproven afid, a wrong proof) to `audit`, once.
 */
export function keyedAuth(keys: ToolsrvKeys, audit: (line: string) => void): ServerAuth {
  const hmac = hmacAuth({
    keyFor: (uname) => (keys.owner && uname === keys.owner.uname ? keys.owner.key : keys.service),
  });
  return {
    start: (uname, aname) => hmac.start(uname, aname),
    refused: (event) => audit(auditLine(event)),
  };
}
