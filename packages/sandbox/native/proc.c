/*
 * A /proc of the sandbox's own. Landlock grants a path to the inode it names, so a grant of /proc/self
 * (resolved when the rules are built) covers only the launched command, not the processes it starts; and
 * granting all of /proc would show every process on the machine. So where it can, the launcher gives the
 * command a mount namespace with a procfs of its own: only process directories (subset=pid), and only those
 * of processes the viewer may trace (hidepid=ptraceable) — which Landlock limits to the sandbox's own. A grant
 * of /proc/self then grants that /proc: every process inside reads its own /proc/self, no other is visible.
 *
 * Holding CAP_SYS_ADMIN (root, outside restricted containers), the command's process mounts it. Otherwise the
 * launcher enters a user namespace (mapping only its own user and group) with a PID namespace, whose first
 * process mounts it and stays as the namespace's init: the command runs as its child, and when the init
 * ends, the kernel ends everything left in the namespace. Where neither is allowed, /proc/self remains the
 * command's alone.
 */
#define _GNU_SOURCE
#include <errno.h>
#include <fcntl.h>
#include <sched.h>
#include <stdio.h>
#include <string.h>
#include <sys/mount.h>
#include <unistd.h>

#include "fail.h"
#include "launcher.h"

static int names_self(const char *path) {
  return strcmp(path, "/proc/self") == 0 || strcmp(path, "/proc/thread-self") == 0;
}

int wants_own_proc(const struct options *o) {
  for (int i = 0; i < o->npaths; i++)
    if (names_self(o->paths[i].path)) return 1;
  return 0;
}

void own_proc(struct options *o) {
  if (!wants_own_proc(o) || unshare(CLONE_NEWNS) < 0) return;
  /* Mounts made here must not reach the rest of the system; the system's may still reach in. */
  if (mount(NULL, "/", NULL, MS_REC | MS_SLAVE, NULL) < 0)
    fail(EXIT_POLICY, "cannot make a private mount namespace: %s", strerror(errno));
  if (mount("proc", "/proc", "proc", MS_NOSUID | MS_NODEV | MS_NOEXEC, "hidepid=ptraceable,subset=pid") < 0)
    return;
  for (int i = 0; i < o->npaths; i++)
    if (names_self(o->paths[i].path)) o->paths[i].path = "/proc";
}

static void write_file(const char *path, const char *text) {
  int fd = open(path, O_WRONLY | O_CLOEXEC);
  if (fd < 0 && errno == ENOENT) return; /* setgroups: kernels before 3.19 have none */
  if (fd < 0 || write(fd, text, strlen(text)) != (ssize_t)strlen(text))
    fail(EXIT_POLICY, "cannot write %s in the new user namespace: %s", path, strerror(errno));
  close(fd);
}

int enter_user_namespace(void) {
  uid_t uid = geteuid();
  gid_t gid = getegid();
  if (unshare(CLONE_NEWUSER | CLONE_NEWNS | CLONE_NEWPID) < 0) return 0;
  char map[64];
  write_file("/proc/self/setgroups", "deny");
  snprintf(map, sizeof map, "%u %u 1\n", (unsigned)uid, (unsigned)uid);
  write_file("/proc/self/uid_map", map);
  snprintf(map, sizeof map, "%u %u 1\n", (unsigned)gid, (unsigned)gid);
  write_file("/proc/self/gid_map", map);
  return 1;
}
