/** Tag reserved for Tversion. */
export const NOTAG = 0xffff;
/** Fid meaning "no fid" (the afid of an unauthenticated Tattach). */
export const NOFID = 0xffffffff;
/** Most names one Twalk may carry. */
export const MAXWELEM = 16;
/** Bytes of Tread/Twrite/Rread overhead: the payload limit is `msize - IOHDRSZ`. */
export const IOHDRSZ = 24;
/** Bytes of a stat entry without its four strings, its own size field included. */
export const STATFIXLEN = 49;
/** Size of the frame header: size[4] type[1] tag[2]. */
export const HEADER_SIZE = 7;
/** Length of an encoded qid. */
export const QID_SIZE = 13;

/** The message type numbers of 9P2000. */
export const MessageTypeNumber = {
  Tversion: 100,
  Rversion: 101,
  Tauth: 102,
  Rauth: 103,
  Tattach: 104,
  Rattach: 105,
  Rerror: 107,
  Tflush: 108,
  Rflush: 109,
  Twalk: 110,
  Rwalk: 111,
  Topen: 112,
  Ropen: 113,
  Tcreate: 114,
  Rcreate: 115,
  Tread: 116,
  Rread: 117,
  Twrite: 118,
  Rwrite: 119,
  Tclunk: 120,
  Rclunk: 121,
  Tremove: 122,
  Rremove: 123,
  Tstat: 124,
  Rstat: 125,
  Twstat: 126,
  Rwstat: 127,
} as const;

/** Qid type bits (the high byte of a stat mode). */
export const QT = {
  DIR: 0x80,
  APPEND: 0x40,
  EXCL: 0x20,
  MOUNT: 0x10,
  AUTH: 0x08,
  TMP: 0x04,
  FILE: 0x00,
} as const;

/** Stat mode bits. */
export const DM = {
  DIR: 0x80000000,
  APPEND: 0x40000000,
  EXCL: 0x20000000,
  MOUNT: 0x10000000,
  AUTH: 0x08000000,
  TMP: 0x04000000,
} as const;

/** Open mode values and flags (one byte on the wire). */
export const OREAD = 0;
export const OWRITE = 1;
export const ORDWR = 2;
export const OEXEC = 3;
export const OTRUNC = 0x10;
export const ORCLOSE = 0x40;
