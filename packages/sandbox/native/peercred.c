/*
 * --peer-cred FD: who is at the other end of the connected Unix socket FD, as the kernel recorded it when
 * the peer connected (SO_PEERCRED), and how confined that process is, printed as
 *
 *   PID UID GID NO_NEW_PRIVS SECCOMP_MODE SECCOMP_FILTERS
 *
 * (SECCOMP_FILTERS is -1 on kernels before 5.9, which do not count them). Node cannot ask this itself; a
 * daemon passes an accepted socket as a descriptor to decide whom it serves. Every command the launcher
 * runs has no_new_privs and one seccomp filter more than whatever started it, which is how a daemon tells
 * its sandboxed tools from its user.
 *
 * The process is held by a pidfd while its /proc entry is read, and is checked to be still running after:
 * a peer that exits meanwhile could have its pid reused by another process, so that is an error.
 */
#define _GNU_SOURCE
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <poll.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <sys/syscall.h>
#include <unistd.h>

#include "launcher.h"

#ifndef SO_PEERPIDFD
#define SO_PEERPIDFD 77
#endif
#ifndef SYS_pidfd_open
#define SYS_pidfd_open 434
#endif

/* Fails unless the process a pidfd holds is still running (it has exited once the pidfd reads as ready). */
static void require_running(int pidfd, pid_t pid) {
  struct pollfd exited = {.fd = pidfd, .events = POLLIN};
  if (poll(&exited, 1, 0) != 0)
    fail(EXIT_POLICY, "--peer-cred: process %d exited before it could be identified", (int)pid);
}

struct confinement {
  int no_new_privs;
  int seccomp_mode;
  int seccomp_filters;
};

/* A pidfd for the peer: the one the socket recorded (Linux 6.5), else one opened by pid (Linux 5.3). */
static int peer_pidfd(int fd, pid_t pid) {
  int pidfd = -1;
  socklen_t size = sizeof pidfd;
  if (getsockopt(fd, SOL_SOCKET, SO_PEERPIDFD, &pidfd, &size) == 0 && pidfd >= 0) return pidfd;
  pidfd = (int)syscall(SYS_pidfd_open, pid, 0);
  if (pidfd < 0) fail(EXIT_POLICY, "--peer-cred: cannot hold process %d: %s", (int)pid, strerror(errno));
  return pidfd;
}

static struct confinement read_confinement(pid_t pid) {
  char path[64];
  snprintf(path, sizeof path, "/proc/%d/status", (int)pid);
  FILE *status = fopen(path, "re");
  if (!status) fail(EXIT_POLICY, "--peer-cred: cannot read %s: %s", path, strerror(errno));
  struct confinement c = {-1, -1, -1};
  char line[256];
  while (fgets(line, sizeof line, status)) {
    sscanf(line, "NoNewPrivs: %d", &c.no_new_privs);
    sscanf(line, "Seccomp: %d", &c.seccomp_mode);
    sscanf(line, "Seccomp_filters: %d", &c.seccomp_filters);
  }
  fclose(status);
  if (c.no_new_privs < 0 || c.seccomp_mode < 0)
    fail(EXIT_POLICY, "--peer-cred: %s does not say NoNewPrivs and Seccomp", path);
  return c;
}

void peer_cred(const char *fd_text) {
  char *end;
  errno = 0;
  long fd = strtol(fd_text, &end, 10);
  if (*fd_text < '0' || *fd_text > '9' || *end != '\0' || errno || fd > INT_MAX)
    fail(EXIT_POLICY, "--peer-cred: '%s' is not a descriptor", fd_text);
  struct ucred cred;
  socklen_t size = sizeof cred;
  if (getsockopt((int)fd, SOL_SOCKET, SO_PEERCRED, &cred, &size) < 0)
    fail(EXIT_POLICY, "--peer-cred %ld: %s", fd, strerror(errno));
  if (cred.pid <= 0) fail(EXIT_POLICY, "--peer-cred %ld: the peer's process is not in this PID namespace", fd);
  int pidfd = peer_pidfd((int)fd, cred.pid);
  require_running(pidfd, cred.pid);
  struct confinement c = read_confinement(cred.pid);
  require_running(pidfd, cred.pid);
  close(pidfd);
  printf("%d %u %u %d %d %d\n", (int)cred.pid, (unsigned)cred.uid, (unsigned)cred.gid, c.no_new_privs,
         c.seccomp_mode, c.seccomp_filters);
  exit(0);
}
