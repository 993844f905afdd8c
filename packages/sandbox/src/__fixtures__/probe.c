/* A test helper: tries one thing a sandbox may forbid and prints "ok" or the error. */
#define _GNU_SOURCE
#include <arpa/inet.h>
#include <fcntl.h>
#include <errno.h>
#include <netinet/in.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/ioctl.h>
#include <sys/socket.h>
#include <sys/syscall.h>
#include <sys/un.h>
#include <unistd.h>

/* Sockets a sandbox may refuse, by name: family, type, protocol. */
static const struct {
  const char *name;
  int family, type, protocol;
} SOCKETS[] = {
    {"tcp-flags", AF_INET, SOCK_STREAM | SOCK_CLOEXEC | SOCK_NONBLOCK, IPPROTO_TCP},
    {"tcp6", AF_INET6, SOCK_STREAM, 0},
    {"udp", AF_INET, SOCK_DGRAM, 0},
    {"mptcp", AF_INET, SOCK_STREAM, 262},
    {"raw-icmp", AF_INET, SOCK_RAW, IPPROTO_ICMP},
    {"ping", AF_INET, SOCK_DGRAM, IPPROTO_ICMP},
    {"sctp", AF_INET, SOCK_SEQPACKET, 132},
    {"packet", 17 /* AF_PACKET */, SOCK_RAW, 0},
    {"vsock", 40 /* AF_VSOCK */, SOCK_STREAM, 0},
    {"alg", 38 /* AF_ALG */, SOCK_SEQPACKET, 0},
    {"netlink-route", 16 /* AF_NETLINK */, SOCK_RAW, 0},
    {"netlink-uevent", 16 /* AF_NETLINK */, SOCK_RAW, 15},
    {"unix", AF_UNIX, SOCK_STREAM, 0},
};

static int report(int rc) {
  if (rc == 0) {
    puts("ok");
    return 0;
  }
  printf("%s\n", strerror(errno));
  return 1;
}

static struct sockaddr_in loopback(int port) {
  struct sockaddr_in a;
  memset(&a, 0, sizeof a);
  a.sin_family = AF_INET;
  a.sin_port = htons(port);
  a.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
  return a;
}

int main(int argc, char **argv) {
  if (argc < 3) {
    fprintf(stderr, "usage: probe socket NAME|socketpair unix|inet|tiocsti|daemon SECONDS|connect|connect-mptcp|bind|udp|kill|abstract|abstract-listen ARG\n");
    return 2;
  }
  const char *what = argv[1];
  if (strcmp(what, "socket") == 0) {
    for (size_t i = 0; i < sizeof SOCKETS / sizeof SOCKETS[0]; i++)
      if (strcmp(argv[2], SOCKETS[i].name) == 0)
        return report(socket(SOCKETS[i].family, SOCKETS[i].type, SOCKETS[i].protocol) < 0 ? -1 : 0);
    fprintf(stderr, "probe: unknown socket %s\n", argv[2]);
    return 2;
  }
  if (strcmp(what, "socketpair") == 0) {
    int pair[2];
    return report(socketpair(strcmp(argv[2], "unix") == 0 ? AF_UNIX : AF_INET, SOCK_STREAM, 0, pair));
  }
  if (strcmp(what, "tiocsti") == 0) {
    /* Pushes a character into the input of a new pseudo-terminal, as into an inherited terminal. */
    int master = posix_openpt(O_RDWR | O_NOCTTY);
    if (master < 0 || grantpt(master) < 0 || unlockpt(master) < 0) return report(-1);
    int slave = open(ptsname(master), O_RDWR | O_NOCTTY);
    if (slave < 0) return report(-1);
    char c = 'x';
    return report(ioctl(slave, TIOCSTI, &c));
  }
  if (strcmp(what, "keyctl") == 0) return report(syscall(SYS_keyctl, 0 /* KEYCTL_GET_KEYRING_ID */, -3, 0) < 0 ? -1 : 0);
  if (strcmp(what, "daemon") == 0) {
    if (daemon(0, 0) < 0) return report(-1);
    sleep((unsigned)atoi(argv[2]));
    return 0;
  }
  if (strcmp(what, "kill") == 0) return report(kill(atoi(argv[2]), SIGTERM));
  if (strcmp(what, "abstract") == 0 || strcmp(what, "abstract-listen") == 0) {
    int s = socket(AF_UNIX, SOCK_STREAM, 0);
    struct sockaddr_un a;
    memset(&a, 0, sizeof a);
    a.sun_family = AF_UNIX;
    strncpy(a.sun_path + 1, argv[2], sizeof a.sun_path - 2);
    socklen_t len = sizeof(sa_family_t) + 1 + strlen(argv[2]);
    if (strcmp(what, "abstract") == 0) return report(connect(s, (struct sockaddr *)&a, len));
    if (bind(s, (struct sockaddr *)&a, len) < 0 || listen(s, 8) < 0) return report(-1);
    puts("listening");
    fflush(stdout);
    for (;;) {
      int c = accept(s, NULL, NULL);
      if (c >= 0) close(c);
    }
  }
  int port = atoi(argv[2]);
  struct sockaddr_in a = loopback(port);
  int s;
  if (strcmp(what, "connect") == 0 || strcmp(what, "bind") == 0) s = socket(AF_INET, SOCK_STREAM, 0);
  else if (strcmp(what, "connect-mptcp") == 0) s = socket(AF_INET, SOCK_STREAM, 262);
  else if (strcmp(what, "udp") == 0) s = socket(AF_INET, SOCK_DGRAM, 0);
  else {
    fprintf(stderr, "probe: unknown test %s\n", what);
    return 2;
  }
  if (s < 0) return report(-1);
  if (strcmp(what, "bind") == 0) return report(bind(s, (struct sockaddr *)&a, sizeof a));
  if (strcmp(what, "udp") == 0) return report(sendto(s, "x", 1, 0, (struct sockaddr *)&a, sizeof a) == 1 ? 0 : -1);
  return report(connect(s, (struct sockaddr *)&a, sizeof a));
}
