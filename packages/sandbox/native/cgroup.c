/*
 * A cgroup of the call's own in each group the caller made. The caller (the sandbox package: for toolsrv, one
 * group per agent) makes a directory per cgroup hierarchy for a group of commands, sets the group's limits
 * there — pids.max and memory.max on cgroup v2, pids.max and memory.limit_in_bytes with the v1 pids and
 * memory controllers — and passes it as --cgroup DIR. The call's launcher makes DIR/call-PID inside it:
 *
 *  - the command joins it first thing, before namespaces and the sandbox. The launcher stays outside, so a
 *    group at its limit never stops the launcher itself; Landlock keeps the cgroup files out of the command's
 *    reach (the sandbox package refuses a policy that would grant writing there). Moving a whole process
 *    (cgroup.procs) takes a global lock that waits for an RCU grace period, milliseconds on a busy machine;
 *    so on cgroup v2 the command is created in its cgroup (clone3's CLONE_INTO_CGROUP, Linux 5.7), and on
 *    v1 its first process, a single thread, moves itself through `tasks`, which takes no such lock;
 *  - a fork the pids controller refused counts in its pids.events, which the supervisor polls (the kernel
 *    notifies pollers): the call is then ended at once, so a fork bomb stops at the limit;
 *  - a process of it the OOM killer killed counts in memory.events.local (v2) or memory.oom_control (v1); on
 *    cgroup v2 the whole call is killed together (memory.oom.group);
 *  - once the tree has ended, its counters are read and the directory is removed.
 *
 * On cgroup v2 from Linux 6.11, pids.events counts a refused fork only in the cgroup whose own limit refused
 * it. The call's cgroup gets the group's pids.max as well, so a call that reaches the limit by itself is seen
 * and ended; a call refused because the group's other calls hold the rest is refused, but not ended.
 */
#define _GNU_SOURCE
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <poll.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "fail.h"
#include "launcher.h"

static struct leaf {
  char path[PATH_MAX];
  int events; /* its pids.events, open for polling; -1 without the pids controller */
  int dir;    /* cgroup v2: the directory, to create the command in it; -1 on v1 */
} leaves[MAX_CGROUPS];
static int nleaves;

static void join_path(char *out, const char *dir, const char *file) {
  if (snprintf(out, PATH_MAX, "%s/%s", dir, file) >= PATH_MAX) fail(EXIT_POLICY, "a cgroup path is too long: %s", dir);
}

/* Writes `text` to DIR/FILE: 0, or why not (ENOENT when the controller is not there). */
static int write_in(const char *dir, const char *file, const char *text) {
  char path[PATH_MAX];
  join_path(path, dir, file);
  int fd = open(path, O_WRONLY | O_CLOEXEC);
  if (fd < 0) return errno;
  ssize_t n = write(fd, text, strlen(text));
  int err = n == (ssize_t)strlen(text) ? 0 : n < 0 ? errno : EIO;
  close(fd);
  return err;
}

/* Reads a small control file whole, NUL-terminated; -1 when it cannot be read. */
static ssize_t read_fd(int fd, char *buf, size_t size) {
  ssize_t n = pread(fd, buf, size - 1, 0);
  if (n < 0) return -1;
  buf[n] = '\0';
  return n;
}

static ssize_t read_in(const char *dir, const char *file, char *buf, size_t size) {
  char path[PATH_MAX];
  join_path(path, dir, file);
  int fd = open(path, O_RDONLY | O_CLOEXEC);
  if (fd < 0) return -1;
  ssize_t n = read_fd(fd, buf, size);
  close(fd);
  return n;
}

/* The value of `key` in a flat-keyed file ("key value" lines); 0 when the key is not there. */
static long counter(const char *text, const char *key) {
  size_t len = strlen(key);
  for (const char *line = text; *line;) {
    if (strncmp(line, key, len) == 0 && line[len] == ' ') return strtol(line + len + 1, NULL, 10);
    const char *end = strchr(line, '\n');
    if (!end) break;
    line = end + 1;
  }
  return 0;
}

static int exists_in(const char *dir, const char *file) {
  char path[PATH_MAX];
  join_path(path, dir, file);
  return access(path, F_OK) == 0;
}

void cgroups_make(const struct options *o) {
  for (int i = 0; i < o->ncgroups; i++) {
    struct leaf *l = &leaves[nleaves];
    char name[32];
    snprintf(name, sizeof name, "call-%d", (int)getpid());
    join_path(l->path, o->cgroups[i], name);
    /* A launcher with this pid that was killed outright left its (empty) cgroup: its counters are not ours. */
    if (mkdir(l->path, 0755) < 0 && !(errno == EEXIST && rmdir(l->path) == 0 && mkdir(l->path, 0755) == 0))
      fail(EXIT_POLICY, "cannot make the call's cgroup %s: %s", l->path, strerror(errno));
    l->events = l->dir = -1;
    nleaves++;
    int err = write_in(l->path, "memory.oom.group", "1");
    if (err && err != ENOENT) fail(EXIT_POLICY, "cannot set %s/memory.oom.group: %s", l->path, strerror(err));
    char max[32];
    if (exists_in(o->cgroups[i], "pids.events.local") && read_in(o->cgroups[i], "pids.max", max, sizeof max) > 0 &&
        (err = write_in(l->path, "pids.max", max)))
      fail(EXIT_POLICY, "cannot set %s/pids.max: %s", l->path, strerror(err));
    char events[PATH_MAX];
    join_path(events, l->path, "pids.events");
    l->events = open(events, O_RDONLY | O_CLOEXEC);
    if (exists_in(l->path, "cgroup.controllers")) l->dir = open(l->path, O_RDONLY | O_DIRECTORY | O_CLOEXEC);
  }
}

int cgroups_v2_dir(void) {
  for (int i = 0; i < nleaves; i++)
    if (leaves[i].dir >= 0) return leaves[i].dir;
  return -1;
}

/* In the command's first process: into every cgroup of the call it was not created in, before anything else. */
void cgroups_join(int created_in_v2) {
  for (int i = 0; i < nleaves; i++) {
    if (created_in_v2 && leaves[i].dir >= 0) continue;
    /* v2 moves threads only within a threaded subtree: a process goes through cgroup.procs there. */
    int err = write_in(leaves[i].path, leaves[i].dir >= 0 ? "cgroup.procs" : "tasks", "0");
    if (err) fail(EXIT_POLICY, "cannot join the call's cgroup %s: %s", leaves[i].path, strerror(err));
  }
}

/* Adds the files to poll for a refused fork (POLLPRI when one changes); returns how many. */
int cgroups_watch(struct pollfd *into) {
  int n = 0;
  for (int i = 0; i < nleaves; i++)
    if (leaves[i].events >= 0) into[n++] = (struct pollfd){.fd = leaves[i].events, .events = POLLPRI};
  return n;
}

/* Whether the pids controller refused a fork of the call (reading also re-arms the poll). */
int cgroups_fork_refused(void) {
  int refused = 0;
  char text[256];
  for (int i = 0; i < nleaves; i++)
    if (leaves[i].events >= 0 && read_fd(leaves[i].events, text, sizeof text) > 0 && counter(text, "max") > 0)
      refused = 1;
  return refused;
}

/* Once the tree has ended: whether the OOM killer killed a process of the call; the cgroups are removed. */
int cgroups_finish(void) {
  int killed = 0;
  char text[1024];
  for (int i = 0; i < nleaves; i++) {
    const char *path = leaves[i].path;
    if (read_in(path, "memory.events.local", text, sizeof text) > 0 ||
        read_in(path, "memory.events", text, sizeof text) > 0 ||
        read_in(path, "memory.oom_control", text, sizeof text) > 0)
      killed |= counter(text, "oom_kill") > 0;
    if (leaves[i].events >= 0) close(leaves[i].events);
    if (leaves[i].dir >= 0) close(leaves[i].dir);
    /* Nothing of the call is left in it; if it cannot go, the group's owner removes it with the group. */
    rmdir(path);
  }
  nleaves = 0;
  return killed;
}
