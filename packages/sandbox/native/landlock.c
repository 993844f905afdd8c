/*
 * One Landlock ruleset for paths, TCP ports and scoping, applied to the calling process.
 *
 * The constants are defined here because distribution kernel headers lag the kernel (Debian 12's stop at
 * ABI 2). Everything goes into one ruleset: separate layers would each deny REFER, breaking renames.
 */
#define _GNU_SOURCE
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/syscall.h>
#include <unistd.h>

#include "fail.h"
#include "launcher.h"
#include "rights.h"

#define SYS_landlock_create_ruleset_nr 444
#define SYS_landlock_add_rule_nr 445
#define SYS_landlock_restrict_self_nr 446
#define LL_CREATE_RULESET_VERSION (1U << 0)
#define LL_CREATE_RULESET_ERRATA (1U << 1)
#define LL_RULE_PATH_BENEATH 1
#define LL_RULE_NET_PORT 2

#define NET_BIND_TCP (1ULL << 0)
#define NET_CONNECT_TCP (1ULL << 1)
#define SCOPE_ABSTRACT_UNIX_SOCKET (1ULL << 0)
#define SCOPE_SIGNAL (1ULL << 1)
#define RESTRICT_LOG_NEW_EXEC_ON (1U << 1)

struct ll_ruleset_attr {
  uint64_t handled_access_fs;
  uint64_t handled_access_net;
  uint64_t scoped;
};

struct ll_path_beneath_attr {
  uint64_t allowed_access;
  int32_t parent_fd;
} __attribute__((packed));

struct ll_net_port_attr {
  uint64_t allowed_access;
  uint64_t port;
};

int kernel_abi(void) {
  long abi = syscall(SYS_landlock_create_ruleset_nr, NULL, 0, LL_CREATE_RULESET_VERSION);
  return abi < 0 ? 0 : (int)abi;
}

long kernel_errata(void) {
  long errata = syscall(SYS_landlock_create_ruleset_nr, NULL, 0, LL_CREATE_RULESET_ERRATA);
  return errata < 0 ? 0 : errata;
}

static uint64_t fs_rights_for(int abi) {
  uint64_t r = 0;
  if (abi >= 1) r |= (1ULL << 13) - 1; /* the 13 rights of ABI 1 */
  if (abi >= 2) r |= FS_REFER;
  if (abi >= 3) r |= FS_TRUNCATE;
  if (abi >= 5) r |= FS_IOCTL_DEV;
  return r;
}

/* What cannot be enforced at this ABI: refused in strict mode, reported once in best-effort mode. */
static void need(const struct options *o, int ok, const char *feature, int abi, int min) {
  if (ok) return;
  if (!o->best_effort)
    fail(EXIT_POLICY, "the kernel's Landlock ABI %d cannot enforce %s (needs ABI %d); use best_effort to run without it",
         abi, feature, min);
  if (!o->quiet)
    dprintf(2, "ollie-sandbox: best effort: Landlock ABI %d cannot enforce %s (needs ABI %d); running without it\n",
            abi, feature, min);
}

static void add_path_rules(const struct options *o, int ruleset, uint64_t handled) {
  for (int i = 0; i < o->npaths; i++) {
    const struct path_grant *g = &o->paths[i];
    int fd = open_grant(o, g);
    if (fd < 0) {
      if (errno == ENOENT && o->ignore_missing) continue;
      if (errno == ELOOP)
        fail(EXIT_POLICY,
             "cannot grant %s: it goes through a symbolic link, which a command that may write there could have "
             "made to move the grant; grant its real path",
             g->path);
      fail(EXIT_POLICY, "cannot grant %s: %s", g->path, strerror(errno));
    }
    struct stat st;
    if (fstat(fd, &st) < 0) fail(EXIT_POLICY, "cannot grant %s: %s", g->path, strerror(errno));
    uint64_t rights = g->rights & handled;
    if (!S_ISDIR(st.st_mode)) rights &= ~FS_DIR_ONLY;
    struct ll_path_beneath_attr rule = {.allowed_access = rights, .parent_fd = fd};
    if (rights && syscall(SYS_landlock_add_rule_nr, ruleset, LL_RULE_PATH_BENEATH, &rule, 0) < 0)
      fail(EXIT_POLICY, "cannot grant %s: %s", g->path, strerror(errno));
    close(fd);
  }
}

static void add_port_rules(int ruleset, const uint64_t *ports, int n, uint64_t access) {
  for (int i = 0; i < n; i++) {
    struct ll_net_port_attr rule = {.allowed_access = access, .port = ports[i]};
    if (syscall(SYS_landlock_add_rule_nr, ruleset, LL_RULE_NET_PORT, &rule, 0) < 0)
      fail(EXIT_POLICY, "cannot allow TCP port %llu: %s", (unsigned long long)ports[i], strerror(errno));
  }
}

/*
 * Restricts the calling process (no_new_privs must be set). Refuses a ruleset that would handle nothing:
 * this launcher is a mandatory sandbox, so a command line that restricts nothing is a mistake.
 */
void apply_landlock(const struct options *o, int abi) {
  struct ll_ruleset_attr attr = {0};
  size_t attr_size = 8;
  if (!o->unrestricted_fs) attr.handled_access_fs = fs_rights_for(abi);
  /* Below ABI 3 a readable file can still be truncated; below ABI 2 renames across directories are simply
   * refused, which is stricter, not weaker, so it needs no consent. */
  need(o, o->unrestricted_fs || abi >= 3, "truncation control", abi, 3);
  int want_net = !o->unrestricted_net && !o->no_inet;
  need(o, !want_net || abi >= 4, "TCP port rules", abi, 4);
  if (!o->unrestricted_net && abi >= 4) {
    attr.handled_access_net = NET_BIND_TCP | NET_CONNECT_TCP;
    attr_size = 16;
  }
  need(o, o->unrestricted_scope || abi >= 6, "signal and abstract-socket scoping", abi, 6);
  if (!o->unrestricted_scope && abi >= 6) {
    attr.scoped = SCOPE_ABSTRACT_UNIX_SOCKET | SCOPE_SIGNAL;
    attr_size = 24;
  }
  if (!attr.handled_access_fs && !attr.handled_access_net && !attr.scoped)
    fail(EXIT_POLICY, "refusing to run: this command line leaves no Landlock restriction at all (%s); the "
                      "launcher is a mandatory sandbox",
         o->best_effort ? "what was not made unrestricted, best effort dropped" : "everything is unrestricted");

  int ruleset = (int)syscall(SYS_landlock_create_ruleset_nr, &attr, attr_size, 0);
  if (ruleset < 0) fail(EXIT_POLICY, "landlock_create_ruleset: %s", strerror(errno));
  if (attr.handled_access_fs) add_path_rules(o, ruleset, attr.handled_access_fs);
  if (attr.handled_access_net) {
    add_port_rules(ruleset, o->bind_ports, o->nbind, NET_BIND_TCP);
    add_port_rules(ruleset, o->connect_ports, o->nconnect, NET_CONNECT_TCP);
  }
  unsigned flags = (abi >= 7 && o->log_new_exec) ? RESTRICT_LOG_NEW_EXEC_ON : 0;
  if (syscall(SYS_landlock_restrict_self_nr, ruleset, flags) < 0)
    fail(EXIT_POLICY, "landlock_restrict_self: %s", strerror(errno));
  close(ruleset);
}
