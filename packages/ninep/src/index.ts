// The public face of @ollie/ninep: every name exported here is part of the API.

export { type HmacAuthOptions, hmacAuth, hmacAuthenticator } from "./auth/hmac.js";
export type { AttachClaim, IdentifyPeer, PeerIdentity } from "./auth/peer-identity.js";
export type { AuthRefusal, AuthSession, ServerAuth } from "./auth/server-auth.js";
export type { Authenticator, AuthFile } from "./client/authenticator.js";
export { NinepClient } from "./client/client.js";
export { type AttachOptions, type ClientOptions, DEFAULT_CLIENT_MSIZE } from "./client/client-options.js";
export { parseDirEntries } from "./client/dir-entries.js";
export { ConnectionClosedError, DialectRefusedError, NinepRemoteError } from "./client/errors.js";
export type { FidClient } from "./client/fid-client.js";
export { File, type ReadAllOptions } from "./client/file.js";
export { type CreateOptions, Fsys, type StatChanges } from "./client/fsys.js";
export {
  DM,
  HEADER_SIZE,
  IOHDRSZ,
  MAXWELEM,
  MessageTypeNumber,
  NOFID,
  NOTAG,
  OEXEC,
  ORCLOSE,
  ORDWR,
  OREAD,
  OTRUNC,
  OWRITE,
  QT,
  STATFIXLEN,
} from "./codec/constants.js";
export { type Dialect, decodeMessage } from "./codec/decode.js";
export { encodeMessage, messageSize } from "./codec/encode.js";
export { ProtocolError } from "./codec/errors.js";
export { type FormatOptions, formatMessage, formatQid, formatStat } from "./codec/format.js";
export { FrameReader } from "./codec/frame-reader.js";
export {
  AT_REMOVEDIR,
  Errno,
  GetattrMask,
  LinuxOpen,
  NONUNAME,
  S_IFDIR,
  S_IFMT,
  S_IFREG,
  SetattrValid,
  V9FS_MAGIC,
} from "./codec/linux/constants.js";
export { errnoText } from "./codec/linux/errno-text.js";
export {
  type Dirent,
  LINUX_MESSAGES,
  type LinuxMessage,
  type LinuxMessageName,
  type LinuxMessageOf,
  type LinuxRMessage,
  type LinuxTMessage,
} from "./codec/linux/messages.js";
export { DONT_TOUCH_QID, dontTouchStat, isSyncStat } from "./codec/stat.js";
export type {
  Message,
  MessageType,
  Qid,
  RMessage,
  Stat,
  TMessage,
} from "./codec/types.js";
export { statSize } from "./codec/writer.js";
export { Ramfs, type RamfsOptions } from "./ramfs/ramfs.js";
export type { Connection } from "./server/connection.js";
export {
  ConnectionDroppedError,
  ConnectionRefusedError,
  type RefusalReason,
} from "./server/connection-errors.js";
export type { ClassifyPeer, ConnectionPeer } from "./server/connection-peer.js";
export type {
  AttachRequest,
  CreateRequest,
  CreateResult,
  Fid,
  FileServer,
  OpenRequest,
  OpenResult,
  ReadRequest,
  RequestContext,
  WalkRequest,
  WriteRequest,
  WstatRequest,
} from "./server/file-server.js";
export { DEFAULT_LIMITS, type ServerLimits } from "./server/limits.js";
export { errnoOf } from "./server/linux/errno.js";
export { NinepError } from "./server/ninep-error.js";
export {
  accessForOpenMode,
  type GroupMembership,
  type Owned,
  PERM_EXEC,
  PERM_READ,
  PERM_WRITE,
  permits,
  sameNameGroups,
} from "./server/permission.js";
export { type ServeOptions, serveUntilSignal } from "./server/serve-until-signal.js";
export {
  DEFAULT_MAX_MSIZE,
  type ListenOptions,
  NinepServer,
  type ServerOptions,
  type ServerStats,
  type StreamOptions,
} from "./server/server.js";
export { MIN_MSIZE } from "./server/version.js";
export {
  type Address,
  AddressError,
  defaultUname,
  formatAddress,
  namespaceDir,
  parseAddress,
  serviceAddress,
} from "./transport/address.js";
export { dial } from "./transport/dial.js";
export { AddressInUseError, assertAddressFree, type Listener } from "./transport/listen.js";
