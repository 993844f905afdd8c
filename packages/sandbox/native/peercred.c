/*
 * --peer-cred FD...: who is at the other end of each connected Unix socket FD, as the kernel recorded it
 * when the peer connected (SO_PEERCRED), and how confined that process is, one line per FD in the order
 * given:
 *
 *   FD PID UID GID NO_NEW_PRIVS SECCOMP_MODE SECCOMP_FILTERS
 *   FD ! WHY
 *
 * (SECCOMP_FILTERS is -1 on kernels before 5.9, which do not count them; the second form says why this FD's
 * peer could not be told, and the others are still answered). Node cannot ask this itself; a daemon passes
 * the sockets it accepted as descriptors to decide whom it serves — many at once, so that a flood of
 * connections costs one launcher start per batch rather than one per connection. Every command the
 * launcher runs has no_new_privs and one seccomp filter more than whatever started it, which is how a
 * daemon tells its sandboxed tools from its user.
 *
 * The process is held by a pidfd while its /proc entry is read, and is checked to be still running after:
 * a peer that exits meanwhile could have its pid reused by another process, so that is an error.
 */
#define _GNU_SOURCE
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <poll.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <sys/syscall.h>
#include <unistd.h>

#include "fail.h"
#include "launcher.h"

#ifndef SO_PEERPIDFD
#define SO_PEERPIDFD 77
#endif
#ifndef SYS_pidfd_open
#define SYS_pidfd_open 434
#endif

/* Why one descriptor's peer could not be told. */
struct refusal {
  char why[256];
};

__attribute__((format(printf, 2, 3))) static int refuse(struct refusal *r, const char *fmt, ...) {
  va_list ap;
  va_start(ap, fmt);
  vsnprintf(r->why, sizeof r->why, fmt, ap);
  va_end(ap);
  return -1;
}

/* Whether the process a pidfd holds is still running (it has exited once the pidfd reads as ready). */
static int running(int pidfd) {
  struct pollfd exited = {.fd = pidfd, .events = POLLIN};
  return poll(&exited, 1, 0) == 0;
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
  return (int)syscall(SYS_pidfd_open, pid, 0);
}

static int read_confinement(pid_t pid, struct confinement *c, struct refusal *r) {
  char path[64];
  snprintf(path, sizeof path, "/proc/%d/status", (int)pid);
  FILE *status = fopen(path, "re");
  if (!status) return refuse(r, "cannot read %s: %s", path, strerror(errno));
  *c = (struct confinement){-1, -1, -1};
  char line[256];
  while (fgets(line, sizeof line, status)) {
    sscanf(line, "NoNewPrivs: %d", &c->no_new_privs);
    sscanf(line, "Seccomp: %d", &c->seccomp_mode);
    sscanf(line, "Seccomp_filters: %d", &c->seccomp_filters);
  }
  fclose(status);
  if (c->no_new_privs < 0 || c->seccomp_mode < 0)
    return refuse(r, "%s does not say NoNewPrivs and Seccomp", path);
  return 0;
}

/* Tells one descriptor's peer into `line`, or why not into `r`. */
static int identify(int fd, char *line, size_t size, struct refusal *r) {
  struct ucred cred;
  socklen_t length = sizeof cred;
  if (getsockopt(fd, SOL_SOCKET, SO_PEERCRED, &cred, &length) < 0) return refuse(r, "%s", strerror(errno));
  if (cred.pid <= 0) return refuse(r, "the peer's process is not in this PID namespace");
  int pidfd = peer_pidfd(fd, cred.pid);
  if (pidfd < 0) return refuse(r, "cannot hold process %d: %s", (int)cred.pid, strerror(errno));
  struct confinement c;
  int failed = !running(pidfd) || read_confinement(cred.pid, &c, r) < 0 || !running(pidfd);
  close(pidfd);
  if (failed) {
    if (!r->why[0]) refuse(r, "process %d exited before it could be identified", (int)cred.pid);
    return -1;
  }
  snprintf(line, size, "%d %u %u %d %d %d", (int)cred.pid, (unsigned)cred.uid, (unsigned)cred.gid,
           c.no_new_privs, c.seccomp_mode, c.seccomp_filters);
  return 0;
}

void peer_cred(int count, char **fds) {
  for (int i = 0; i < count; i++) {
    char *end;
    errno = 0;
    long fd = strtol(fds[i], &end, 10);
    if (*fds[i] < '0' || *fds[i] > '9' || *end != '\0' || errno || fd > INT_MAX)
      fail(EXIT_POLICY, "--peer-cred: '%s' is not a descriptor", fds[i]);
  }
  for (int i = 0; i < count; i++) {
    int fd = atoi(fds[i]);
    char line[128];
    struct refusal r = {{0}};
    if (identify(fd, line, sizeof line, &r) == 0)
      printf("%d %s\n", fd, line);
    else
      printf("%d ! %s\n", fd, r.why);
  }
  if (fflush(stdout) != 0) fail(EXIT_POLICY, "--peer-cred: cannot write: %s", strerror(errno));
  exit(0);
}
