/*
 * --serve: a launcher that stays, and starts sandboxed commands on request. A call then costs one fork of this
 * small process instead of a fork of the (large) caller plus an exec of the launcher.
 *
 * Requests arrive on stdin, each a 32-bit little-endian length and then NUL-terminated fields:
 *
 *   run ID CWD ARGC ARG... ENVC ENV...   start `ollie-sandbox-launcher ARG...` in CWD with exactly ENV
 *   opened ID                            the caller has opened the call's pipes: this side's copies close
 *
 * Replies go to stdout, one line each:
 *
 *   started ID PID IN OUT ERR   PID is the call's launcher (signal it to end the call, as a launched one);
 *                               IN, OUT and ERR are this process's ends of the command's standard input,
 *                               output and error, for the caller to open as /proc/SERVER/fd/N
 *   exited ID STATUS [LIMIT...] the call's launcher ended, with this wait status; LIMIT names each limit the
 *                               command reached (`processes`, `memory`), as its launcher reported them
 *   failed ID REASON            nothing was started
 *
 * Each call's launcher is a copy of this process that runs exactly what a launched one would (launch()):
 * it supervises its command's whole tree. It reports on a pipe of its own (--report-fd 3), read here when it
 * has ended. When stdin ends, or this process is told to end or its parent
 * dies, every call is told to end (SIGTERM) and this process exits.
 */
#define _GNU_SOURCE
#include <errno.h>
#include <fcntl.h>
#include <poll.h>
#include <signal.h>
#include <stdarg.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/prctl.h>
#include <sys/signalfd.h>
#include <sys/syscall.h>
#include <sys/wait.h>
#include <unistd.h>

#include "fail.h"
#include "launcher.h"

#define MAX_REQUEST (16 << 20)

struct call {
  char id[24];
  pid_t pid; /* 0 once reaped */
  int fds[3]; /* -1 once closed */
  int report; /* this process's end of the launcher's report pipe */
};

static struct call *calls;
static size_t ncalls, capacity;

static void reply(const char *fmt, ...) __attribute__((format(printf, 1, 2)));
static void reply(const char *fmt, ...) {
  char line[512];
  va_list ap;
  va_start(ap, fmt);
  int n = vsnprintf(line, sizeof line - 1, fmt, ap);
  va_end(ap);
  if (n < 0) return;
  if (n > (int)sizeof line - 2) n = (int)sizeof line - 2;
  line[n++] = '\n';
  for (int done = 0; done < n;) {
    ssize_t w = write(1, line + done, (size_t)(n - done));
    if (w < 0 && errno == EINTR) continue;
    if (w <= 0) _exit(0); /* nobody listens any more */
    done += (int)w;
  }
}

static struct call *find(const char *id) {
  for (size_t i = 0; i < ncalls; i++)
    if (strcmp(calls[i].id, id) == 0) return &calls[i];
  return NULL;
}

static void close_fds(struct call *c) {
  for (int i = 0; i < 3; i++)
    if (c->fds[i] >= 0) close(c->fds[i]), c->fds[i] = -1;
}

/* Forgets a call once it has ended and its pipes were handed over. */
static void forget(struct call *c) {
  if (c->pid != 0 || c->fds[0] >= 0) return;
  *c = calls[--ncalls];
}

/* The NUL-terminated fields of a request, checked against its end. */
struct fields {
  char *at, *end;
};

static char *field(struct fields *f) {
  if (f->at >= f->end) return NULL;
  char *s = f->at;
  char *nul = memchr(s, '\0', (size_t)(f->end - s));
  if (!nul) return NULL;
  f->at = nul + 1;
  return s;
}

static char **field_list(struct fields *f, int extra) {
  char *count = field(f);
  char *end;
  long n = count ? strtol(count, &end, 10) : -1;
  if (!count || *end || n < 0 || n > 1 << 20) return NULL;
  char **list = calloc((size_t)(n + extra + 1), sizeof *list);
  if (!list) return NULL;
  for (long i = 0; i < n; i++)
    if (!(list[i + extra] = field(f))) return free(list), NULL;
  return list;
}

#define REPORT_FD 3

/* In the call's launcher: its pipes become 0-2 and its report pipe 3, nothing else of the server's stays open. */
static void become_call(pid_t service, int in, int out, int err, int report, const char *cwd, char **argv,
                        char **env) {
  /* Should this process die before the call's launcher follows it (supervise.c), the call ends here, before
   * its command exists: a launcher started by a service already gone would see only init as its parent. */
  if (prctl(PR_SET_PDEATHSIG, SIGTERM, 0, 0, 0) < 0 || getppid() != service) _exit(EXIT_POLICY);
  if (dup2(in, 0) < 0 || dup2(out, 1) < 0 || dup2(err, 2) < 0 || dup2(report, REPORT_FD) < 0) _exit(EXIT_POLICY);
  if (syscall(436 /* close_range */, REPORT_FD + 1U, ~0U, 0U) < 0)
    for (int fd = REPORT_FD + 1; fd < 1024; fd++) close(fd);
  sigset_t none;
  sigemptyset(&none);
  sigprocmask(SIG_SETMASK, &none, NULL);
  if (chdir(cwd) < 0) fail(EXIT_POLICY, "cannot enter the working directory %s: %s", cwd, strerror(errno));
  environ = env;
  int argc = 0;
  while (argv[argc]) argc++;
  launch(argc, argv);
}

static void run(struct fields *f) {
  pid_t service = getpid();
  char *id = field(f), *cwd = field(f);
  char **argv = field_list(f, 3);
  char **env = argv ? field_list(f, 0) : NULL;
  if (!id || strlen(id) >= sizeof calls->id || strpbrk(id, " \n")) {
    reply("failed ? malformed request");
    goto done;
  }
  if (!cwd || !argv || !env) {
    reply("failed %s malformed request", id);
    goto done;
  }
  argv[0] = "ollie-sandbox-launcher";
  argv[1] = "--report-fd";
  argv[2] = "3";
  int in[2] = {-1, -1}, out[2] = {-1, -1}, err[2] = {-1, -1}, report[2] = {-1, -1};
  pid_t pid = -1;
  if (pipe2(in, O_CLOEXEC) == 0 && pipe2(out, O_CLOEXEC) == 0 && pipe2(err, O_CLOEXEC) == 0 &&
      pipe2(report, O_CLOEXEC | O_NONBLOCK) == 0)
    pid = fork();
  if (pid == 0) become_call(service, in[0], out[1], err[1], report[1], cwd, argv, env);
  int why = errno;
  int ours[4] = {in[1], out[0], err[0], report[0]}, theirs[4] = {in[0], out[1], err[1], report[1]};
  for (int i = 0; i < 4; i++) {
    if (theirs[i] >= 0) close(theirs[i]);
    if (pid < 0 && ours[i] >= 0) close(ours[i]);
  }
  if (pid < 0) {
    reply("failed %s %s", id, strerror(why));
    goto done;
  }
  if (ncalls == capacity) {
    capacity = capacity ? capacity * 2 : 16;
    calls = realloc(calls, capacity * sizeof *calls);
    if (!calls) fail(EXIT_POLICY, "out of memory");
  }
  struct call *c = &calls[ncalls++];
  snprintf(c->id, sizeof c->id, "%s", id);
  c->pid = pid;
  memcpy(c->fds, ours, sizeof c->fds);
  c->report = report[0];
  reply("started %s %d %d %d %d", id, (int)pid, ours[0], ours[1], ours[2]);
done:
  free(argv);
  free(env);
}

static void handle(char *request, size_t len) {
  struct fields f = {request, request + len};
  char *verb = field(&f);
  if (verb && strcmp(verb, "run") == 0) {
    run(&f);
  } else if (verb && strcmp(verb, "opened") == 0) {
    char *id = field(&f);
    struct call *c = id ? find(id) : NULL;
    if (c) {
      close_fds(c);
      forget(c);
    }
  } else {
    reply("failed ? unknown request");
  }
}

static void kill_if_orphan(pid_t pid) {
  for (size_t i = 0; i < ncalls; i++)
    if (calls[i].pid == pid) return;
  kill(pid, SIGKILL);
}

/*
 * Reaps what ended. A call's launcher that ended by a signal may have been killed before it could end its
 * command's tree, whose processes then come here (this process is their subreaper): every child that is
 * not a call's launcher is killed — again whenever one of them ends, since its own children come here then.
 */
static void reap(void) {
  int status, sweep = 0;
  for (pid_t pid; (pid = waitpid(-1, &status, WNOHANG | __WALL)) > 0;) {
    struct call *c = NULL;
    for (size_t i = 0; i < ncalls && !c; i++)
      if (calls[i].pid == pid) c = &calls[i];
    if (!c) {
      sweep = 1;
      continue;
    }
    /* The launcher reported before it exited: its line is in the pipe already. */
    char limits[64] = "";
    ssize_t n = read(c->report, limits, sizeof limits - 1);
    limits[n > 0 ? n : 0] = '\0';
    limits[strcspn(limits, "\n")] = '\0';
    close(c->report);
    reply("exited %s %d%s%s", c->id, status, *limits ? " " : "", limits);
    c->pid = 0;
    forget(c);
    sweep |= WIFSIGNALED(status);
  }
  if (sweep) each_child(kill_if_orphan);
}

static void shut_down(void) __attribute__((noreturn));
static void shut_down(void) {
  for (size_t i = 0; i < ncalls; i++)
    if (calls[i].pid) kill(calls[i].pid, SIGTERM);
  _exit(0);
}

void serve(void) {
  pid_t parent = getppid();
  sigset_t handled;
  sigemptyset(&handled);
  int sigs[] = {SIGCHLD, SIGTERM, SIGINT, SIGHUP, SIGPIPE};
  for (size_t i = 0; i < sizeof sigs / sizeof sigs[0]; i++) sigaddset(&handled, sigs[i]);
  sigprocmask(SIG_BLOCK, &handled, NULL);
  if (prctl(PR_SET_PDEATHSIG, SIGTERM, 0, 0, 0) < 0 || getppid() != parent) _exit(0);
  /* An orphan of a call's launcher that died comes here rather than escaping to init; it is reaped. */
  prctl(PR_SET_CHILD_SUBREAPER, 1, 0, 0, 0);
  int sfd = signalfd(-1, &handled, SFD_CLOEXEC | SFD_NONBLOCK);
  if (sfd < 0) fail(EXIT_POLICY, "signalfd: %s", strerror(errno));

  size_t have = 0, size = 1 << 16;
  char *buf = malloc(size);
  if (!buf) fail(EXIT_POLICY, "out of memory");
  for (;;) {
    struct pollfd p[2] = {{.fd = 0, .events = POLLIN}, {.fd = sfd, .events = POLLIN}};
    if (poll(p, 2, -1) < 0) {
      if (errno == EINTR) continue;
      fail(EXIT_POLICY, "poll: %s", strerror(errno));
    }
    if (p[1].revents & POLLIN) {
      struct signalfd_siginfo si;
      while (read(sfd, &si, sizeof si) == sizeof si) {
        if (si.ssi_signo == SIGCHLD) reap();
        else if (si.ssi_signo != SIGPIPE) shut_down();
      }
    }
    if (!(p[0].revents & (POLLIN | POLLHUP | POLLERR))) continue;
    if (have == size) {
      if (size >= MAX_REQUEST) fail(EXIT_POLICY, "a request longer than %d bytes", MAX_REQUEST);
      size *= 2;
      if (!(buf = realloc(buf, size))) fail(EXIT_POLICY, "out of memory");
    }
    ssize_t n = read(0, buf + have, size - have);
    if (n < 0 && errno == EINTR) continue;
    if (n <= 0) shut_down();
    have += (size_t)n;
    while (have >= 4) {
      uint32_t len = (uint32_t)(unsigned char)buf[0] | (uint32_t)(unsigned char)buf[1] << 8 |
                     (uint32_t)(unsigned char)buf[2] << 16 | (uint32_t)(unsigned char)buf[3] << 24;
      if (len > MAX_REQUEST) fail(EXIT_POLICY, "a request longer than %d bytes", MAX_REQUEST);
      if (have < 4 + (size_t)len) {
        while (size < 4 + (size_t)len) size *= 2;
        if (!(buf = realloc(buf, size))) fail(EXIT_POLICY, "out of memory");
        break;
      }
      handle(buf + 4, len);
      memmove(buf, buf + 4 + len, have - 4 - len);
      have -= 4 + len;
    }
  }
}
