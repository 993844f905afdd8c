import { createHmac, randomBytes } from "node:crypto";
import { REDACTED } from "@ollie/log";
import { type AuthRefusal, hmacAuth, type ServerAuth } from "@ollie/ninep";

/**
 * Who may attach, and the secret each must prove through Tauth (hmac-sha256 challenge-response): the
 * owner proves the key in the owner key file; an agent proves a secret derived from this run's master key
 * and its uname, which only its own tool processes are given (OLLIE_KEY). Nobody else can attach.
 */
export class Principals {
  /** Lives only in this process: agents' secrets change with every start of the daemon. */
  private readonly master = randomBytes(32);
  private readonly ownerSecret: Buffer;
  /** What olliesrv proves to the toolsrv it starts (and toolsrv demands of every attach). */
  readonly toolsrvKey = randomBytes(32).toString("hex");

  constructor(
    readonly owner: string,
    ownerKey: string,
    private readonly audit: (line: string, source: string) => void,
  ) {
    this.ownerSecret = Buffer.from(ownerKey, "utf8");
  }

  /** Every agent secret made in this run, to recognise one in text (a tool's output holding its OLLIE_KEY). */
  private readonly agentKeys = new Set<string>();

  agentKey(uname: string): string {
    const key = createHmac("sha256", this.master).update(`agent\n${uname}`).digest("hex");
    this.agentKeys.add(key);
    return key;
  }

  /** `text` with every agent secret of this run replaced, as the log replaces the owner's. */
  redactAgentKeys(text: string): string {
    return text.replace(/[0-9a-f]{64}/g, (hex) => (this.agentKeys.has(hex) ? REDACTED : hex));
  }

  /**
   * The Tauth handler for every listener; each refusal leaves an audit line. `isAgent` says whether a uname
   * is an agent that exists now (only those have a secret).
   */
  serverAuth(isAgent: (uname: string) => boolean): ServerAuth {
    const keyFor = (uname: string): Uint8Array | undefined => {
      if (uname === this.owner) return this.ownerSecret;
      return isAgent(uname) ? Buffer.from(this.agentKey(uname), "utf8") : undefined;
    };
    // A refusal names the owner when the client holds the owner's key but claimed another uname.
    const auth = hmacAuth({ keyFor, knownUnames: () => [this.owner] });
    return {
      start: (uname, aname) => auth.start(uname, aname),
      refused: (r: AuthRefusal) => {
        // A stranger's claim goes into the log as sent: the log escapes whatever could forge a line.
        const who = r.uname === this.owner || isAgent(r.uname) ? r.uname : `unknown principal ${r.uname}`;
        this.audit(`refused attach as ${who} from ${r.peer}: ${r.reason}`, r.peer);
      },
    };
  }
}
