/*
 * ollie-sandbox: run a command under Landlock and seccomp, then exec it.
 *
 * One dependency-free file: the Landlock and seccomp constants are defined here because distribution
 * kernel headers lag the kernel (Debian 12's stop at Landlock ABI 2). Options follow landrun's:
 *
 *   --ro PATHS --rox PATHS --rw PATHS --rwx PATHS   grant paths (comma lists, repeatable)
 *   --bind-tcp PORTS --connect-tcp PORTS            allow TCP ports (Landlock ABI >= 4)
 *   --unrestricted-filesystem --unrestricted-network --unrestricted-scope
 *   --no-inet                                       seccomp: no IPv4/IPv6 sockets at all, no io_uring
 *   --best-effort       run with what the kernel supports (never without Landlock), say so on stderr
 *   --quiet             do not say it (the caller reports what best effort dropped)
 *   --ignore-missing    skip paths that do not exist instead of failing
 *   --abi-cap N         use at most Landlock ABI N (to test older kernels)
 *   --log-new-exec      ABI 7 audit: log denials of the command (debugging)
 *   --probe             print {"abi":…} as JSON and exit
 *
 * Everything goes into one ruleset. MPTCP sockets are always refused: Landlock's TCP rules do not apply
 * to them. The command is found on PATH inside the sandbox, so its directory must be executable.
 *
 * Exit status: the command's own, since the launcher becomes the command; 125 when the policy cannot be
 * applied, 126 when the command cannot be executed, 127 when it is not found.
 */
#define _GNU_SOURCE
#include <errno.h>
#include <fcntl.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/prctl.h>
#include <sys/stat.h>
#include <sys/syscall.h>
#include <unistd.h>

#define EXIT_POLICY 125
#define EXIT_EXEC 126
#define EXIT_NOT_FOUND 127

/* ---- Landlock ---- */
#define SYS_landlock_create_ruleset_nr 444
#define SYS_landlock_add_rule_nr 445
#define SYS_landlock_restrict_self_nr 446
#define LL_CREATE_RULESET_VERSION (1U << 0)
#define LL_CREATE_RULESET_ERRATA (1U << 1)
#define LL_RULE_PATH_BENEATH 1
#define LL_RULE_NET_PORT 2

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

#define NET_BIND_TCP (1ULL << 0)
#define NET_CONNECT_TCP (1ULL << 1)
#define SCOPE_ABSTRACT_UNIX_SOCKET (1ULL << 0)
#define SCOPE_SIGNAL (1ULL << 1)
#define RESTRICT_LOG_NEW_EXEC_ON (1U << 1)

/* The newest ABI this launcher knows how to use. */
#define LAUNCHER_ABI 7

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

#define FS_DIR_ONLY                                                                                  \
  (FS_READ_DIR | FS_REMOVE_DIR | FS_REMOVE_FILE | FS_MAKE_CHAR | FS_MAKE_DIR | FS_MAKE_REG |        \
   FS_MAKE_SOCK | FS_MAKE_FIFO | FS_MAKE_BLOCK | FS_MAKE_SYM | FS_REFER)
#define RIGHTS_RO (FS_READ_FILE | FS_READ_DIR)
#define RIGHTS_ROX (RIGHTS_RO | FS_EXECUTE)
#define RIGHTS_RW (RIGHTS_RO | FS_WRITE_FILE | FS_TRUNCATE | FS_IOCTL_DEV | FS_DIR_ONLY)
#define RIGHTS_RWX (RIGHTS_RW | FS_EXECUTE)

/* ---- seccomp (classic BPF) ---- */
#define SECCOMP_MODE_FILTER_ 2
#define RET_KILL_PROCESS 0x80000000U
#define RET_ERRNO 0x00050000U
#define RET_ALLOW 0x7fff0000U
#define BPF_LD_W_ABS 0x20   /* BPF_LD | BPF_W | BPF_ABS */
#define BPF_JEQ_K 0x15      /* BPF_JMP | BPF_JEQ | BPF_K */
#define BPF_JSET_K 0x45     /* BPF_JMP | BPF_JSET | BPF_K */
#define BPF_RET_K 0x06      /* BPF_RET | BPF_K */
#define DATA_NR 0
#define DATA_ARCH 4
#define DATA_ARG0_LO 16
#define DATA_ARG2_LO 32
#define IPPROTO_MPTCP_ 262
#define AF_INET_ 2
#define AF_INET6_ 10
#define NR_io_uring_setup 425
#define NR_io_uring_enter 426
#define NR_io_uring_register 427

#if defined(__x86_64__)
#define AUDIT_ARCH_NATIVE 0xC000003EU
#define ARCH_NAME "x86_64"
#define X32_SYSCALL_BIT 0x40000000U
#elif defined(__aarch64__)
#define AUDIT_ARCH_NATIVE 0xC00000B7U
#define ARCH_NAME "aarch64"
#else
#error "ollie-sandbox supports x86_64 and aarch64"
#endif

struct bpf_insn_ {
  uint16_t code;
  uint8_t jt;
  uint8_t jf;
  uint32_t k;
};

struct bpf_prog_ {
  unsigned short len;
  struct bpf_insn_ *filter;
};

/* ---- options ---- */
#define MAX_ITEMS 512

struct path_grant {
  const char *path;
  uint64_t rights;
};

struct options {
  struct path_grant paths[MAX_ITEMS];
  int npaths;
  uint64_t bind_ports[MAX_ITEMS];
  int nbind;
  uint64_t connect_ports[MAX_ITEMS];
  int nconnect;
  int unrestricted_fs, unrestricted_net, unrestricted_scope;
  int no_inet, best_effort, ignore_missing, log_new_exec, probe, quiet;
  int abi_cap;
  char **command;
};

static void fail(int status, const char *fmt, ...) __attribute__((noreturn, format(printf, 2, 3)));

#include <stdarg.h>
static void fail(int status, const char *fmt, ...) {
  va_list ap;
  va_start(ap, fmt);
  fputs("ollie-sandbox: ", stderr);
  vfprintf(stderr, fmt, ap);
  fputc('\n', stderr);
  va_end(ap);
  exit(status);
}

static void add_paths(struct options *o, char *list, uint64_t rights) {
  for (char *save = NULL, *p = strtok_r(list, ",", &save); p; p = strtok_r(NULL, ",", &save)) {
    if (*p == '\0') continue;
    if (o->npaths >= MAX_ITEMS) fail(EXIT_POLICY, "too many paths (at most %d)", MAX_ITEMS);
    o->paths[o->npaths].path = p;
    o->paths[o->npaths].rights = rights;
    o->npaths++;
  }
}

static void add_ports(uint64_t *ports, int *n, char *list, const char *flag) {
  for (char *save = NULL, *p = strtok_r(list, ",", &save); p; p = strtok_r(NULL, ",", &save)) {
    char *end;
    errno = 0;
    unsigned long v = strtoul(p, &end, 10);
    if (*p == '\0' || *end != '\0' || errno || v > 65535) fail(EXIT_POLICY, "%s: bad port '%s'", flag, p);
    if (*n >= MAX_ITEMS) fail(EXIT_POLICY, "too many ports (at most %d)", MAX_ITEMS);
    ports[(*n)++] = v;
  }
}

static void parse(int argc, char **argv, struct options *o) {
  o->abi_cap = LAUNCHER_ABI;
  int i = 1;
  for (; i < argc; i++) {
    const char *a = argv[i];
    const char *value = i + 1 < argc ? argv[i + 1] : NULL;
#define WITH_VALUE(flag)                                                                             \
  if (!value) fail(EXIT_POLICY, "%s needs a value", flag);                                          \
  i++;
    if (strcmp(a, "--") == 0) {
      i++;
      break;
    } else if (a[0] != '-') {
      break;
    } else if (strcmp(a, "--ro") == 0) {
      WITH_VALUE(a) add_paths(o, argv[i], RIGHTS_RO);
    } else if (strcmp(a, "--rox") == 0) {
      WITH_VALUE(a) add_paths(o, argv[i], RIGHTS_ROX);
    } else if (strcmp(a, "--rw") == 0) {
      WITH_VALUE(a) add_paths(o, argv[i], RIGHTS_RW);
    } else if (strcmp(a, "--rwx") == 0) {
      WITH_VALUE(a) add_paths(o, argv[i], RIGHTS_RWX);
    } else if (strcmp(a, "--bind-tcp") == 0) {
      WITH_VALUE(a) add_ports(o->bind_ports, &o->nbind, argv[i], a);
    } else if (strcmp(a, "--connect-tcp") == 0) {
      WITH_VALUE(a) add_ports(o->connect_ports, &o->nconnect, argv[i], a);
    } else if (strcmp(a, "--abi-cap") == 0) {
      WITH_VALUE(a) o->abi_cap = atoi(argv[i]);
      if (o->abi_cap < 0) fail(EXIT_POLICY, "--abi-cap: bad value '%s'", argv[i]);
    } else if (strcmp(a, "--unrestricted-filesystem") == 0) {
      o->unrestricted_fs = 1;
    } else if (strcmp(a, "--unrestricted-network") == 0) {
      o->unrestricted_net = 1;
    } else if (strcmp(a, "--unrestricted-scope") == 0) {
      o->unrestricted_scope = 1;
    } else if (strcmp(a, "--no-inet") == 0) {
      o->no_inet = 1;
    } else if (strcmp(a, "--best-effort") == 0) {
      o->best_effort = 1;
    } else if (strcmp(a, "--ignore-missing") == 0) {
      o->ignore_missing = 1;
    } else if (strcmp(a, "--log-new-exec") == 0) {
      o->log_new_exec = 1;
    } else if (strcmp(a, "--probe") == 0) {
      o->probe = 1;
    } else if (strcmp(a, "--quiet") == 0) {
      o->quiet = 1;
    } else {
      fail(EXIT_POLICY, "unknown option %s", a);
    }
  }
  o->command = argv + i;
  if (!o->probe && !o->command[0]) fail(EXIT_POLICY, "no command given");
}

static int kernel_abi(void) {
  long abi = syscall(SYS_landlock_create_ruleset_nr, NULL, 0, LL_CREATE_RULESET_VERSION);
  return abi < 0 ? 0 : (int)abi;
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
    fprintf(stderr, "ollie-sandbox: best effort: Landlock ABI %d cannot enforce %s (needs ABI %d); running without it\n",
            abi, feature, min);
}

static void apply_landlock(const struct options *o, int abi) {
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
  if (!attr.handled_access_fs && !attr.handled_access_net && !attr.scoped) return;

  int ruleset = (int)syscall(SYS_landlock_create_ruleset_nr, &attr, attr_size, 0);
  if (ruleset < 0) fail(EXIT_POLICY, "landlock_create_ruleset: %s", strerror(errno));

  for (int i = 0; i < o->npaths && attr.handled_access_fs; i++) {
    const struct path_grant *g = &o->paths[i];
    int fd = open(g->path, O_PATH | O_CLOEXEC);
    if (fd < 0) {
      if (errno == ENOENT && o->ignore_missing) continue;
      fail(EXIT_POLICY, "cannot grant %s: %s", g->path, strerror(errno));
    }
    struct stat st;
    if (fstat(fd, &st) < 0) fail(EXIT_POLICY, "cannot grant %s: %s", g->path, strerror(errno));
    uint64_t rights = g->rights & attr.handled_access_fs;
    if (!S_ISDIR(st.st_mode)) rights &= ~FS_DIR_ONLY;
    struct ll_path_beneath_attr rule = {.allowed_access = rights, .parent_fd = fd};
    if (rights && syscall(SYS_landlock_add_rule_nr, ruleset, LL_RULE_PATH_BENEATH, &rule, 0) < 0)
      fail(EXIT_POLICY, "cannot grant %s: %s", g->path, strerror(errno));
    close(fd);
  }
  if (attr.handled_access_net) {
    for (int pass = 0; pass < 2; pass++) {
      const uint64_t *ports = pass ? o->connect_ports : o->bind_ports;
      int n = pass ? o->nconnect : o->nbind;
      for (int i = 0; i < n; i++) {
        struct ll_net_port_attr rule = {.allowed_access = pass ? NET_CONNECT_TCP : NET_BIND_TCP, .port = ports[i]};
        if (syscall(SYS_landlock_add_rule_nr, ruleset, LL_RULE_NET_PORT, &rule, 0) < 0)
          fail(EXIT_POLICY, "cannot allow TCP port %llu: %s", (unsigned long long)ports[i], strerror(errno));
      }
    }
  }
  unsigned flags = (abi >= 7 && o->log_new_exec) ? RESTRICT_LOG_NEW_EXEC_ON : 0;
  if (syscall(SYS_landlock_restrict_self_nr, ruleset, flags) < 0)
    fail(EXIT_POLICY, "landlock_restrict_self: %s", strerror(errno));
  close(ruleset);
}

/* A tiny assembler: jumps name label numbers, resolved to relative offsets at the end. */
struct asm_ {
  struct bpf_insn_ insn[64];
  int jt_label[64], jf_label[64];
  int label_at[8];
  int n;
};

static void emit(struct asm_ *a, uint16_t code, uint32_t k, int jt, int jf) {
  a->insn[a->n] = (struct bpf_insn_){.code = code, .k = k};
  a->jt_label[a->n] = jt;
  a->jf_label[a->n] = jf;
  a->n++;
}

enum { NEXT = -1, L_DENY = 0, L_SOCKET = 1, L_ALLOW = 2 };
/* A jump target that is not a label but a fixed number of instructions to skip. */
#define SKIP(n) (100 + (n))

static void apply_seccomp(const struct options *o) {
  struct asm_ a = {.n = 0};
  emit(&a, BPF_LD_W_ABS, DATA_ARCH, NEXT, NEXT);
  emit(&a, BPF_JEQ_K, AUDIT_ARCH_NATIVE, SKIP(1), NEXT);
  emit(&a, BPF_RET_K, RET_KILL_PROCESS, NEXT, NEXT);
  emit(&a, BPF_LD_W_ABS, DATA_NR, NEXT, NEXT);
#ifdef X32_SYSCALL_BIT
  emit(&a, BPF_JSET_K, X32_SYSCALL_BIT, L_DENY, NEXT);
#endif
  emit(&a, BPF_JEQ_K, SYS_socket, L_SOCKET, NEXT);
  if (o->no_inet) {
    emit(&a, BPF_JEQ_K, NR_io_uring_setup, L_DENY, NEXT);
    emit(&a, BPF_JEQ_K, NR_io_uring_enter, L_DENY, NEXT);
    emit(&a, BPF_JEQ_K, NR_io_uring_register, L_DENY, NEXT);
  }
  a.label_at[L_ALLOW] = a.n;
  emit(&a, BPF_RET_K, RET_ALLOW, NEXT, NEXT);
  a.label_at[L_SOCKET] = a.n;
  emit(&a, BPF_LD_W_ABS, DATA_ARG2_LO, NEXT, NEXT);
  emit(&a, BPF_JEQ_K, IPPROTO_MPTCP_, L_DENY, NEXT);
  if (o->no_inet) {
    emit(&a, BPF_LD_W_ABS, DATA_ARG0_LO, NEXT, NEXT);
    emit(&a, BPF_JEQ_K, AF_INET_, L_DENY, NEXT);
    emit(&a, BPF_JEQ_K, AF_INET6_, L_DENY, NEXT);
  }
  emit(&a, BPF_RET_K, RET_ALLOW, NEXT, NEXT);
  a.label_at[L_DENY] = a.n;
  emit(&a, BPF_RET_K, RET_ERRNO | EPERM, NEXT, NEXT);

  for (int i = 0; i < a.n; i++) {
    int labels[2] = {a.jt_label[i], a.jf_label[i]};
    uint8_t *fields[2] = {&a.insn[i].jt, &a.insn[i].jf};
    for (int j = 0; j < 2; j++) {
      if (labels[j] == NEXT) *fields[j] = 0;
      else if (labels[j] >= SKIP(0)) *fields[j] = (uint8_t)(labels[j] - SKIP(0));
      else *fields[j] = (uint8_t)(a.label_at[labels[j]] - i - 1);
    }
  }
  struct bpf_prog_ prog = {.len = (unsigned short)a.n, .filter = a.insn};
  if (prctl(PR_SET_SECCOMP, SECCOMP_MODE_FILTER_, &prog) < 0) fail(EXIT_POLICY, "seccomp: %s", strerror(errno));
}

/* Only standard input, output and error reach the command: an inherited descriptor keeps its access. */
static void close_other_fds(void) {
  if (syscall(436 /* close_range */, 3U, ~0U, 0U) == 0) return;
  long max = sysconf(_SC_OPEN_MAX);
  if (max < 0 || max > 65536) max = 65536;
  for (int fd = 3; fd < max; fd++) close(fd);
}

int main(int argc, char **argv) {
  struct options o;
  memset(&o, 0, sizeof o);
  parse(argc, argv, &o);

  int kabi = kernel_abi();
  int abi = kabi < o.abi_cap ? kabi : o.abi_cap;
  if (abi > LAUNCHER_ABI) abi = LAUNCHER_ABI;
  if (o.probe) {
    long errata = syscall(SYS_landlock_create_ruleset_nr, NULL, 0, LL_CREATE_RULESET_ERRATA);
    printf("{\"abi\":%d,\"kernelAbi\":%d,\"launcherAbi\":%d,\"errata\":%ld,\"arch\":\"%s\"}\n", abi, kabi,
           LAUNCHER_ABI, errata < 0 ? 0L : errata, ARCH_NAME);
    return 0;
  }
  if (abi == 0)
    fail(EXIT_POLICY, "Landlock is not available (kernel ABI %d%s); refusing to run unsandboxed", kabi,
         kabi > 0 ? ", capped to 0" : ": needs Linux 5.13+ with landlock in the lsm= list");

  if (prctl(PR_SET_NO_NEW_PRIVS, 1, 0, 0, 0) < 0) fail(EXIT_POLICY, "no_new_privs: %s", strerror(errno));
  apply_landlock(&o, abi);
  apply_seccomp(&o);
  close_other_fds();

  execvp(o.command[0], o.command);
  int err = errno;
  if (err == ENOENT) fail(EXIT_NOT_FOUND, "%s: command not found", o.command[0]);
  fail(EXIT_EXEC, "%s: cannot execute: %s", o.command[0], strerror(err));
}
