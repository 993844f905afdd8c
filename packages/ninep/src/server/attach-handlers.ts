import { admitClaim } from "../auth/peer-identity.js";
import { QT } from "../codec/constants.js";
import { Errno, NONUNAME } from "../codec/linux/constants.js";
import type { Qid, RMessage, Tattach, Tauth, Twrite } from "../codec/types.js";
import type { ConnectionContext } from "./connection-context.js";
import type { FidAccess } from "./fid-access.js";
import { FidState } from "./fid-state.js";
import type { FileServer } from "./file-server.js";
import { call, live } from "./handler-call.js";
import type { UserIds } from "./linux/user-ids.js";
import { refuse } from "./ninep-error.js";
import type { PendingRequest } from "./pending-request.js";

const ROOT_PLACEHOLDER: Qid = { type: QT.DIR, version: 0, path: 0n };

/**
 * Tauth and Tattach, and the writes that prove an afid: which user each fid of the connection acts for —
 * the identified peer's, or the one a request names and proves — checked before the FileServer's attach.
 */
export class AttachHandlers<A> {
  private authPath = 0n;

  constructor(
    readonly conn: ConnectionContext<A>,
    readonly fs: FileServer<A>,
    readonly fids: FidAccess<A>,
    readonly ids: UserIds,
  ) {}

  /** Refuses a uname or aname longer than the server allows. */
  private checkNames(uname: string, aname: string): void {
    const max = this.conn.options.limits.maxNameBytes;
    for (const [what, name] of [
      ["uname", uname],
      ["aname", aname],
    ] as const) {
      if (Buffer.byteLength(name) > max)
        throw refuse(`${what} is longer than ${max} bytes`, Errno.ENAMETOOLONG);
    }
  }

  /** The user a Tauth or Tattach names: in 9P2000.L an empty uname with a number is that number's user. */
  private unameOf(m: Tauth | Tattach): string {
    if (m.nUname === undefined || m.nUname === NONUNAME) return m.uname;
    const uname = m.uname === "" ? this.ids.nameOf(m.nUname) : m.uname;
    this.ids.note(uname, m.nUname);
    return uname;
  }

  async auth(m: Tauth): Promise<RMessage> {
    const auth = this.conn.options.auth;
    if (!auth || this.conn.options.identity) throw refuse("authentication not required", Errno.ENOENT);
    const uname = this.unameOf(m);
    this.checkNames(uname, m.aname);
    const max = this.conn.options.limits.maxAuthFids;
    let held = 0;
    for (const f of this.conn.fids.values()) if (f.auth) held++;
    if (held >= max)
      throw refuse(`too many authentication fids (at most ${max}); clunk one first`, Errno.EMFILE);
    const aqid = { type: QT.AUTH, version: 0, path: this.authPath++ };
    const f = this.fids.reserve(m.afid, () => new FidState<A>(m.afid, uname, m.aname, aqid, undefined as A));
    try {
      f.auth = auth.start(uname, m.aname);
    } catch (err) {
      this.fids.unreserve(f);
      throw err;
    }
    f.pending = false;
    return { type: "Rauth", tag: m.tag, aqid };
  }

  private checkAuthentication(m: Tattach, uname: string): void {
    try {
      this.verifyAttach(m, uname);
    } catch (err) {
      this.refused(uname, m.aname, err);
      throw err;
    }
  }

  /** A write to an afid: a step of the proof, whose failure is a refusal like a failed attach. */
  async prove(req: PendingRequest, f: FidState<A>, m: Twrite): Promise<number> {
    try {
      return await f.auth!.write(m.data, live(req));
    } catch (err) {
      this.refused(f.uname, f.aname, err);
      throw err;
    }
  }

  private refused(uname: string, aname: string, err: unknown): void {
    const reason = (err as Error).message;
    this.conn.options.auth?.refused?.({ uname, aname, reason, peer: this.conn.peer });
  }

  private verifyAttach(m: Tattach, uname: string): void {
    if (m.afid === 0xffffffff) {
      if (this.conn.options.auth) throw refuse("authentication required", Errno.EPERM);
      return;
    }
    const a = this.conn.fids.get(m.afid);
    if (!a || a.pending) throw refuse("unknown fid", Errno.EBADF);
    if (!a.auth) throw refuse("afid is not an authentication file", Errno.EINVAL);
    if (a.uname !== uname || a.aname !== m.aname) {
      throw refuse("afid was made for another uname or aname", Errno.EPERM);
    }
    if (!a.auth.verified()) throw refuse("authentication failed", Errno.EPERM);
  }

  /** The uname an attach is made as: the identified peer's, or the one it names and proves. */
  private attacher(m: Tattach): string {
    const identity = this.conn.options.identity;
    if (!identity) {
      const uname = this.unameOf(m);
      this.checkNames(uname, m.aname);
      this.checkAuthentication(m, uname);
      return uname;
    }
    this.checkNames(m.uname, m.aname);
    const nUname = m.nUname === NONUNAME ? undefined : m.nUname;
    admitClaim(identity, { uname: m.uname, nUname, aname: m.aname });
    if (identity.uid !== undefined) this.ids.note(identity.uname, identity.uid);
    return identity.uname;
  }

  async attach(req: PendingRequest, m: Tattach): Promise<RMessage> {
    const uname = this.attacher(m);
    const f = this.fids.reserve(
      m.fid,
      () => new FidState<A>(m.fid, uname, m.aname, ROOT_PLACEHOLDER, undefined as A),
    );
    const end = f.beginBusy();
    try {
      try {
        f.qid = await this.fs.attach(call(req, f, { uname, aname: m.aname }));
      } catch (err) {
        this.fids.unreserve(f);
        throw err;
      }
      f.serverOwned = true;
      if (!this.fids.install(req, f)) throw refuse("interrupted", Errno.EINTR);
      this.conn.markAttached();
      return { type: "Rattach", tag: m.tag, qid: f.qid };
    } finally {
      end();
    }
  }
}
