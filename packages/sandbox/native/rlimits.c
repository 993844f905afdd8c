/*
 * The command's per-process resource limits, set just before it execs and inherited by all it starts:
 *
 *  - RLIMIT_DATA (--rlimit-data BYTES): the memory each process may allocate, for when no memory cgroup
 *    holds the group's memory; an allocation past it fails (ENOMEM). RLIMIT_AS would count address space
 *    that runtimes reserve and never touch (Node's and Go's), and stop them at start.
 *  - RLIMIT_FSIZE (--rlimit-fsize BYTES): the largest file a process may write; a write past it fails with
 *    EFBIG, after SIGXFSZ, which ends the process unless it handles or ignores it.
 *  - RLIMIT_CPU (--rlimit-cpu SECONDS): each process's CPU time; SIGXCPU at the limit, which ends it unless
 *    handled, and SIGKILL a second of CPU later.
 *  - RLIMIT_NPROC (--rlimit-nproc N), for a user other than root (the kernel exempts root): the kernel counts
 *    every task (process or thread) of the user, not the command's alone, so the limit is N more than the
 *    tasks counted when the command starts — in a user namespace of the launcher's own (proc.c) only the
 *    namespace's, otherwise every task of the user, read from /proc.
 *  - RLIMIT_CORE 0: a process these limits end leaves no core file behind.
 *
 * A limit is never set above the hard limit the launcher was given (that would need CAP_SYS_RESOURCE).
 */
#define _GNU_SOURCE
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/resource.h>
#include <unistd.h>

#include "fail.h"
#include "launcher.h"

/* The tasks (threads) of processes whose real user is this launcher's. */
static long user_tasks(void) {
  DIR *proc = opendir("/proc");
  if (!proc) fail(EXIT_POLICY, "cannot count the user's processes for RLIMIT_NPROC: /proc: %s", strerror(errno));
  uid_t uid = getuid();
  long tasks = 0;
  for (struct dirent *e; (e = readdir(proc));) {
    if (e->d_name[0] < '0' || e->d_name[0] > '9') continue;
    char path[300], status[4096];
    snprintf(path, sizeof path, "/proc/%s/status", e->d_name);
    int fd = open(path, O_RDONLY | O_CLOEXEC);
    if (fd < 0) continue; /* it has ended */
    ssize_t n = read(fd, status, sizeof status - 1);
    close(fd);
    if (n <= 0) continue;
    status[n] = '\0';
    const char *real = strstr(status, "\nUid:");
    const char *threads = strstr(status, "\nThreads:");
    if (real && threads && strtoul(real + 5, NULL, 10) == uid) tasks += strtol(threads + 9, NULL, 10);
  }
  closedir(proc);
  return tasks;
}

void rlimits_prepare(struct options *o, int namespaced) {
  if (o->rlimit_nproc == NO_LIMIT || getuid() == 0) return;
  /* In a user namespace of its own, only the launcher and the namespace's init count before the command. */
  o->nproc_base = namespaced ? 2 : user_tasks();
}

static void set_limit(int resource, const char *name, rlim_t soft, rlim_t hard) {
  struct rlimit now;
  if (getrlimit(resource, &now) < 0) fail(EXIT_POLICY, "cannot read %s: %s", name, strerror(errno));
  if (hard > now.rlim_max) hard = now.rlim_max;
  if (soft > hard) soft = hard;
  struct rlimit wanted = {soft, hard};
  if (setrlimit(resource, &wanted) < 0) fail(EXIT_POLICY, "cannot set %s: %s", name, strerror(errno));
}

void apply_rlimits(const struct options *o) {
  if (o->rlimit_data != NO_LIMIT) set_limit(RLIMIT_DATA, "RLIMIT_DATA", (rlim_t)o->rlimit_data, (rlim_t)o->rlimit_data);
  if (o->rlimit_fsize != NO_LIMIT)
    set_limit(RLIMIT_FSIZE, "RLIMIT_FSIZE", (rlim_t)o->rlimit_fsize, (rlim_t)o->rlimit_fsize);
  if (o->rlimit_cpu != NO_LIMIT) set_limit(RLIMIT_CPU, "RLIMIT_CPU", (rlim_t)o->rlimit_cpu, (rlim_t)o->rlimit_cpu + 1);
  if (o->rlimit_nproc != NO_LIMIT && getuid() != 0) {
    rlim_t n = (rlim_t)(o->nproc_base + o->rlimit_nproc);
    set_limit(RLIMIT_NPROC, "RLIMIT_NPROC", n, n);
  }
  set_limit(RLIMIT_CORE, "RLIMIT_CORE", 0, 0);
}
