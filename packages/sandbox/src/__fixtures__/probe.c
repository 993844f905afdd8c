/* A test helper: tries one thing a sandbox may forbid and prints "ok" or the error. */
#include <arpa/inet.h>
#include <errno.h>
#include <netinet/in.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <sys/un.h>
#include <unistd.h>

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
    fprintf(stderr, "usage: probe connect|connect-mptcp|bind|udp|kill|abstract|abstract-listen ARG\n");
    return 2;
  }
  const char *what = argv[1];
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
