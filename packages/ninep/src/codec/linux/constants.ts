/** The numeric id that means "none" in Tauth and Tattach: the server goes by `uname`. */
export const NONUNAME = 0xffffffff;

/** The Linux errno values a 9P2000.L server answers with (Rlerror's ecode). */
export const Errno = {
  EPERM: 1,
  ENOENT: 2,
  EIO: 5,
  EBADF: 9,
  EACCES: 13,
  EEXIST: 17,
  EXDEV: 18,
  ENOTDIR: 20,
  EISDIR: 21,
  EINVAL: 22,
  EFBIG: 27,
  ENOSPC: 28,
  ERANGE: 34,
  ENOSYS: 38,
  ENOTEMPTY: 39,
  ENODATA: 61,
  EPROTO: 71,
  EOPNOTSUPP: 95,
  EINTR: 4,
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
