/*
 * A /proc of the sandbox's own. Landlock grants a path to the inode it names, so a grant of /proc/self
 * (resolved when the rules are built) covers only the launched command, not the processes it starts; and
 * granting all of /proc would show every process on the machine. Where the launcher may mount (it holds
 * CAP_SYS_ADMIN, as root does outside restricted containers), it gives the command a mount namespace with a
 * procfs of its own: only process directories (subset=pid), and only those of processes the viewer may
 * trace (hidepid=ptraceable) — which Landlock limits to the sandbox's own. A grant of /proc/self then
 * grants that /proc, so every process inside reads its own /proc/self, and no other process is visible.
 * Elsewhere /proc/self remains the command's alone.
 */
#define _GNU_SOURCE
#include <errno.h>
#include <sched.h>
#include <string.h>
#include <sys/mount.h>

#include "launcher.h"

static int names_self(const char *path) {
  return strcmp(path, "/proc/self") == 0 || strcmp(path, "/proc/thread-self") == 0;
}

void own_proc(struct options *o) {
  int wanted = 0;
  for (int i = 0; i < o->npaths; i++) wanted |= names_self(o->paths[i].path);
  if (!wanted || unshare(CLONE_NEWNS) < 0) return;
  /* Mounts made here must not reach the rest of the system; the system's may still reach in. */
  if (mount(NULL, "/", NULL, MS_REC | MS_SLAVE, NULL) < 0)
    fail(EXIT_POLICY, "cannot make a private mount namespace: %s", strerror(errno));
  if (mount("proc", "/proc", "proc", MS_NOSUID | MS_NODEV | MS_NOEXEC, "hidepid=ptraceable,subset=pid") < 0)
    return;
  for (int i = 0; i < o->npaths; i++)
    if (names_self(o->paths[i].path)) o->paths[i].path = "/proc";
}
