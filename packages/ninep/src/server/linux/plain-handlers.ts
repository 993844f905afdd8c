import type { Rcreate, RMessage, Ropen, Rstat, Tcreate, Topen, Tstat, Twstat } from "../../codec/types.js";
import type { ConnectionContext } from "../connection-context.js";
import type { FidAccess, HeldFids } from "../fid-access.js";
import type { FileServer } from "../file-server.js";
import type { PendingRequest } from "../pending-request.js";
import type { UserIds } from "./user-ids.js";

/** What 9P2000.L's requests are done with: the connection, its fids and users, and 9P2000's own requests. */
export interface PlainHandlers<A> {
  readonly conn: ConnectionContext<A>;
  readonly fs: FileServer<A>;
  readonly fids: FidAccess<A>;
  readonly ids: UserIds;
  open(req: PendingRequest, m: Topen, used: HeldFids<A>): Promise<Ropen>;
  create(req: PendingRequest, m: Tcreate, used: HeldFids<A>): Promise<Rcreate>;
  stat(req: PendingRequest, m: Tstat, used: HeldFids<A>): Promise<Rstat>;
  wstat(req: PendingRequest, m: Twstat, used: HeldFids<A>): Promise<RMessage>;
}
