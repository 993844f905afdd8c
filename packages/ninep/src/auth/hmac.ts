import { createHmac, randomBytes, timingSafeEqual } from "node:crypto";
import type { Authenticator } from "../client/authenticator.js";
import { Errno } from "../codec/linux/constants.js";
import { refuse } from "../server/ninep-error.js";
import type { AuthSession, ServerAuth } from "./server-auth.js";

const SCHEME = "hmac-sha256";

function proof(key: Uint8Array, nonce: string, uname: string, aname: string): Buffer {
  return createHmac("sha256", key).update(`${nonce}\n${uname}\n${aname}`).digest();
}

export interface HmacAuthOptions {
  /** The secret a uname must prove it knows, or undefined for a uname that may not attach. */
  keyFor(uname: string): Uint8Array | undefined;
  /**
   * The unames whose keys a failed answer is tried against, so the refusal can name whose key the client
   * holds ("the key proves alice, not bob"). It tells a client only what its key already proves.
   */
  knownUnames?(): Iterable<string>;
}

/**
 * Challenge-response authentication over the afid, for servers that must know who attaches. Reading the
 * afid gives `hmac-sha256 NONCE\n`; the client writes the hex HMAC-SHA256, under the uname's secret, of
 * `NONCE\nUNAME\nANAME`. One wrong answer spends the afid. The secret itself never crosses the wire.
 */
export function hmacAuth(options: HmacAuthOptions): ServerAuth {
  return {
    start(uname: string, aname: string): AuthSession {
      const nonce = randomBytes(32).toString("hex");
      const challenge = Buffer.from(`${SCHEME} ${nonce}\n`);
      let sent = 0;
      let state: "waiting" | "verified" | "failed" = "waiting";
      return {
        read(count) {
          const chunk = challenge.subarray(sent, sent + count);
          sent += chunk.length;
          return chunk;
        },
        write(data) {
          if (state !== "waiting") throw refuse("authentication already attempted on this afid", Errno.EPERM);
          state = "failed";
          const key = options.keyFor(uname);
          const answer = Buffer.from(Buffer.from(data).toString("utf8").trim(), "hex");
          const expected = proof(key ?? randomBytes(32), nonce, uname, aname);
          if (!key || !sameProof(answer, expected)) {
            throw refuse(refusal(options, answer, nonce, uname, aname), Errno.EPERM);
          }
          state = "verified";
          return data.length;
        },
        verified: () => state === "verified",
      };
    },
  };
}

const sameProof = (a: Buffer, b: Buffer) => a.length === b.length && timingSafeEqual(a, b);

function refusal(options: HmacAuthOptions, answer: Buffer, nonce: string, uname: string, aname: string) {
  for (const other of options.knownUnames?.() ?? []) {
    const key = options.keyFor(other);
    if (other !== uname && key && sameProof(answer, proof(key, nonce, uname, aname))) {
      return `authentication failed: the key proves ${JSON.stringify(other)}, but the attach claimed ${JSON.stringify(uname)}`;
    }
  }
  return "authentication failed";
}

/** The client side of `hmacAuth`: answers the challenge with `key`. */
export function hmacAuthenticator(key: Uint8Array | string): Authenticator {
  const secret = typeof key === "string" ? Buffer.from(key, "utf8") : key;
  return async (afile, { uname, aname }) => {
    let text = "";
    while (!text.includes("\n")) {
      const chunk = await afile.read(256);
      if (chunk.length === 0) break;
      text += chunk.toString("utf8");
    }
    const [scheme, nonce] = text.trim().split(" ");
    if (scheme !== SCHEME || !nonce) throw new Error(`server offers unknown authentication '${text.trim()}'`);
    await afile.write(Buffer.from(proof(secret, nonce, uname, aname).toString("hex")));
  };
}
