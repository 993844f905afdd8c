/*
 * --peer-cred FD: who is at the other end of the connected Unix socket FD, as the kernel recorded it when
 * the peer connected (SO_PEERCRED), printed as "PID UID GID". Node cannot ask this itself; a daemon passes
 * an accepted socket as a descriptor to decide whom it serves.
 */
#define _GNU_SOURCE
#include <errno.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>

#include "launcher.h"

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
  printf("%d %u %u\n", (int)cred.pid, (unsigned)cred.uid, (unsigned)cred.gid);
  exit(0);
}
