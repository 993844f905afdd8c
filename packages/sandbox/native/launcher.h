/*
 * ollie-sandbox-launcher: shared declarations of the launcher's parts.
 *
 *   main.c        which of the three the launcher was started for: --serve, --peer-cred or a command
 *   launch.c      options, --help/--version/--probe, the order of the steps
 *   fail.c        the error exit every part calls (fail.h)
 *   landlock.c    one Landlock ruleset: paths, TCP ports, scoping
 *   rights.h      the filesystem rights, and what --ro, --rox, --rw and --rwx grant
 *   grant-paths.c opening granted paths without following links a command could have made
 *   seccomp.c     the seccomp filter for what Landlock cannot see (sockets, io_uring, terminal injection,
 *                 namespaces)
 *   privileges.c  dropping every capability before the command runs
 *   proc.c        a /proc that shows the sandbox's own processes
 *   rlimits.c     the command's per-process resource limits (data, file size, CPU time, processes)
 *   cgroup.c      a cgroup of the call's own in each group the caller made: joined, watched, removed
 *   supervise.c   the parent that stays: forwards signals and ends the whole process tree with the command
 *   serve.c       --serve: a long-lived launcher that starts sandboxed commands on request, for less than an exec
 *   peercred.c    --peer-cred FD...: the process, user and group at the other end of Unix sockets
 */
#ifndef OLLIE_SANDBOX_LAUNCHER_H
#define OLLIE_SANDBOX_LAUNCHER_H

#include <stdint.h>
#include <sys/types.h>

/* The launcher's own interface revision: bumped when its options or behaviour change. */
#define LAUNCHER_REVISION 5
/* The newest Landlock ABI this launcher knows how to use. */
#define LAUNCHER_ABI 7

#define EXIT_POLICY 125
#define EXIT_EXEC 126
#define EXIT_NOT_FOUND 127

#define MAX_ITEMS 512
#define MAX_CGROUPS 4
#define MAX_NO_FOLLOW 8
#define DEFAULT_GRACE_MS 500
/* Not set: a resource limit the command does not get. */
#define NO_LIMIT (-1L)

#if defined(__x86_64__)
#define ARCH_NAME "x86_64"
#elif defined(__aarch64__)
#define ARCH_NAME "aarch64"
#else
#error "ollie-sandbox supports x86_64 and aarch64: its seccomp filter knows no other architecture"
#endif

struct path_grant {
  const char *path;
  uint64_t rights;
};

struct options {
  struct path_grant paths[MAX_ITEMS];
  int npaths;
  /* Grants opened from `/` without following any link (grant-paths.c): the working directory's. */
  const char *no_follow[MAX_NO_FOLLOW];
  int nno_follow;
  uint64_t bind_ports[MAX_ITEMS];
  int nbind;
  uint64_t connect_ports[MAX_ITEMS];
  int nconnect;
  int unrestricted_fs, unrestricted_net, unrestricted_scope;
  int no_inet, best_effort, ignore_missing, log_new_exec, quiet;
  int abi_cap;
  long grace_ms;
  /* Group directories the command's own cgroups go under, one per hierarchy (cgroup.c). */
  const char *cgroups[MAX_CGROUPS];
  int ncgroups;
  /* Per-process limits (rlimits.c), NO_LIMIT when not given. */
  long rlimit_data, rlimit_fsize, rlimit_cpu, rlimit_nproc;
  /* Set by rlimits_prepare: the tasks RLIMIT_NPROC counts that are not the command's. */
  long nproc_base;
  /* Where the limits the command reached are reported, -1 for nowhere. */
  int report_fd;
  int allow_namespaces;
  char **command;
};

/* Runs a command line of options and a command, as the launcher does when started with it (launch.c). */
void launch(int argc, char **argv) __attribute__((noreturn));

/* Serves requests to launch on stdin, replying on stdout (serve.c). */
void serve(void) __attribute__((noreturn));
/* peercred.c */
void peer_cred(int count, char **fds) __attribute__((noreturn));

/* Landlock (landlock.c). */
int kernel_abi(void);
long kernel_errata(void);
void apply_landlock(const struct options *o, int abi);

/* A granted path opened for its rule, refusing links an agent could have made (grant-paths.c). */
int open_grant(const struct options *o, const struct path_grant *g);

/* seccomp (seccomp.c). */
void apply_seccomp(const struct options *o);

/* A /proc of the sandbox's own, where the launcher may mount one (proc.c). */
int wants_own_proc(const struct options *o);
void own_proc(struct options *o);
int enter_user_namespace(void);

/* Capabilities (privileges.c). */
int holds_capability(int cap);
void drop_capabilities(void);

/* Resource limits (rlimits.c): counted in the launcher, set in the command before it execs. */
void rlimits_prepare(struct options *o, int namespaced);
void apply_rlimits(const struct options *o);

/* The call's own cgroups (cgroup.c). */
struct pollfd;
void cgroups_make(const struct options *o);
int cgroups_v2_dir(void);
void cgroups_join(int created_in_v2);
int cgroups_watch(struct pollfd *into);
int cgroups_fork_refused(void);
int cgroups_finish(void);

/* Calls `visit` for each child of this process (supervise.c). */
void each_child(void (*visit)(pid_t));

/*
 * The supervising parent (supervise.c): runs `start` in a child and never returns. `execs` says that the
 * child ends by exec (or exit): it then shares the launcher's memory until it does, which spares copying it.
 * `outermost` is the launcher's own supervisor (not a PID namespace's init): its child joins the call's
 * cgroups, and it watches them and reports the limits the command reached.
 */
void supervise(struct options *o, void (*start)(struct options *, int), int abi, int execs, int outermost)
    __attribute__((noreturn));

#endif
