/*
 * The Landlock filesystem rights, and what each path option grants: known to the options (launch.c), to the
 * grants that must not follow links (grant-paths.c) and to the ruleset (landlock.c), so they sit in a header
 * of their own rather than in any one of them. Defined here, as landlock.c defines the rest, because
 * distribution kernel headers lag the kernel.
 */
#ifndef OLLIE_SANDBOX_RIGHTS_H
#define OLLIE_SANDBOX_RIGHTS_H

#include <stdint.h>
#include <string.h>

#define FS_EXECUTE (1ULL << 0)
#define FS_WRITE_FILE (1ULL << 1)
#define FS_READ_FILE (1ULL << 2)
#define FS_READ_DIR (1ULL << 3)
#define FS_REMOVE_DIR (1ULL << 4)
#define FS_REMOVE_FILE (1ULL << 5)
#define FS_MAKE_CHAR (1ULL << 6)
#define FS_MAKE_DIR (1ULL << 7)
#define FS_MAKE_REG (1ULL << 8)
#define FS_MAKE_SOCK (1ULL << 9)
#define FS_MAKE_FIFO (1ULL << 10)
#define FS_MAKE_BLOCK (1ULL << 11)
#define FS_MAKE_SYM (1ULL << 12)
#define FS_REFER (1ULL << 13)
#define FS_TRUNCATE (1ULL << 14)
#define FS_IOCTL_DEV (1ULL << 15)

#define FS_DIR_ONLY                                                                                  \
  (FS_READ_DIR | FS_REMOVE_DIR | FS_REMOVE_FILE | FS_MAKE_CHAR | FS_MAKE_DIR | FS_MAKE_REG |        \
   FS_MAKE_SOCK | FS_MAKE_FIFO | FS_MAKE_BLOCK | FS_MAKE_SYM | FS_REFER)
#define RIGHTS_RO (FS_READ_FILE | FS_READ_DIR)
#define RIGHTS_ROX (RIGHTS_RO | FS_EXECUTE)
#define RIGHTS_RW (RIGHTS_RO | FS_WRITE_FILE | FS_TRUNCATE | FS_IOCTL_DEV | FS_DIR_ONLY)
#define RIGHTS_RWX (RIGHTS_RW | FS_EXECUTE)

/* The rights a path option grants, or 0 when `flag` is not one. */
static inline uint64_t landlock_rights(const char *flag) {
  if (strcmp(flag, "--ro") == 0) return RIGHTS_RO;
  if (strcmp(flag, "--rox") == 0) return RIGHTS_ROX;
  if (strcmp(flag, "--rw") == 0) return RIGHTS_RW;
  if (strcmp(flag, "--rwx") == 0) return RIGHTS_RWX;
  return 0;
}

/* Whether a grant of `rights` lets its holder write, and so swap what lies beneath it for links. */
static inline int landlock_writes(uint64_t rights) {
  return (rights & FS_WRITE_FILE) != 0;
}

#endif
