/** The numeric id that means "none" in Tauth and Tattach: the server goes by `uname`. */
export const NONUNAME = 0xffffffff;

/**
 * The Linux errno values a 9P2000.L server answers with (Rlerror's ecode), named as Node names a system
 * error's `code`: an error whose `code` is one of these keys is answered with its number (see errnoOf).
 */
export const Errno = {
  EPERM: 1,
  ENOENT: 2,
  ESRCH: 3,
  EINTR: 4,
  EIO: 5,
  ENXIO: 6,
  E2BIG: 7,
  ENOEXEC: 8,
  EBADF: 9,
  ECHILD: 10,
  EAGAIN: 11,
  ENOMEM: 12,
  EACCES: 13,
  EFAULT: 14,
  EBUSY: 16,
  EEXIST: 17,
  EXDEV: 18,
  ENODEV: 19,
  ENOTDIR: 20,
  EISDIR: 21,
  EINVAL: 22,
  ENFILE: 23,
  EMFILE: 24,
  ENOTTY: 25,
  ETXTBSY: 26,
  EFBIG: 27,
  ENOSPC: 28,
  ESPIPE: 29,
  EROFS: 30,
  EMLINK: 31,
  EPIPE: 32,
  EDOM: 33,
  ERANGE: 34,
  EDEADLK: 35,
  ENAMETOOLONG: 36,
  ENOLCK: 37,
  ENOSYS: 38,
  ENOTEMPTY: 39,
  ELOOP: 40,
  ENODATA: 61,
  ETIME: 62,
  EPROTO: 71,
  EOVERFLOW: 75,
  EILSEQ: 84,
  ENOTSOCK: 88,
  EMSGSIZE: 90,
  EPROTONOSUPPORT: 93,
  EOPNOTSUPP: 95,
  ENOTSUP: 95,
  EAFNOSUPPORT: 97,
  EADDRINUSE: 98,
  EADDRNOTAVAIL: 99,
  ENETDOWN: 100,
  ENETUNREACH: 101,
  ENETRESET: 102,
  ECONNABORTED: 103,
  ECONNRESET: 104,
  ENOBUFS: 105,
  EISCONN: 106,
  ENOTCONN: 107,
  ETIMEDOUT: 110,
  ECONNREFUSED: 111,
  EHOSTDOWN: 112,
  EHOSTUNREACH: 113,
  EALREADY: 114,
  EINPROGRESS: 115,
  ESTALE: 116,
  EDQUOT: 122,
  ECANCELED: 125,
} as const;

/** Tgetattr's request mask and Rgetattr's valid bits. */
export const GetattrMask = {
  MODE: 0x1n,
  NLINK: 0x2n,
  UID: 0x4n,
  GID: 0x8n,
  RDEV: 0x10n,
  ATIME: 0x20n,
  MTIME: 0x40n,
  CTIME: 0x80n,
  INO: 0x100n,
  SIZE: 0x200n,
  BLOCKS: 0x400n,
  BASIC: 0x7ffn,
  BTIME: 0x800n,
  GEN: 0x1000n,
  DATA_VERSION: 0x2000n,
  ALL: 0x3fffn,
} as const;

/** Tsetattr's valid bits: which fields to set; a time without its *_SET bit means "now". */
export const SetattrValid = {
  MODE: 0x1,
  UID: 0x2,
  GID: 0x4,
  SIZE: 0x8,
  ATIME: 0x10,
  MTIME: 0x20,
  CTIME: 0x40,
  ATIME_SET: 0x80,
  MTIME_SET: 0x100,
} as const;

/** Linux open(2) flags as Tlopen and Tlcreate carry them. */
export const LinuxOpen = {
  RDONLY: 0,
  WRONLY: 1,
  RDWR: 2,
  ACCMODE: 3,
  CREAT: 0o100,
  EXCL: 0o200,
  TRUNC: 0o1000,
  APPEND: 0o2000,
  DIRECTORY: 0o200000,
} as const;

/** File type bits of a Linux mode, and the directory entry types of Rreaddir. */
export const S_IFMT = 0o170000;
export const S_IFDIR = 0o040000;
export const S_IFREG = 0o100000;
export const DT_DIR = 4;
export const DT_REG = 8;

/** Tunlinkat's flag for removing a directory. */
export const AT_REMOVEDIR = 0x200;

/** What Tstatfs answers for a tree that has no blocks to count: v9fs's own magic number, 255-byte names. */
export const V9FS_MAGIC = 0x01021997;

/** Tlock's status and lock types. */
export const LockStatus = { SUCCESS: 0, BLOCKED: 1, ERROR: 2, GRACE: 3 } as const;
export const LockType = { RDLCK: 0, WRLCK: 1, UNLCK: 2 } as const;
