/*
 * The supervising parent. The launcher forks: the child applies the sandbox and becomes the command; the
 * parent stays outside the sandbox (so nothing inside can signal or trace it) as a child subreaper, which
 * makes every process the command starts its descendant for good — a `setsid`, a double fork or daemon(3)
 * only re-parents an orphan to it. It forwards signals to the command and ends the whole tree with it:
 *
 *  - when the command exits, whatever it left running is killed, then the launcher exits as the command did;
 *  - a terminating signal sent to the launcher (TERM, INT, HUP, QUIT) is passed on, and everything still
 *    running after the grace period is killed;
 *  - when the launcher's own parent dies (even by SIGKILL), everything is killed at once.
 *
 * Signals a terminal sends to its foreground group reach the command directly, so they are not passed on.
 *
 * The outermost supervisor (not a PID namespace's init) also watches the call's cgroups (cgroup.c): a fork
 * the pids controller refused ends the whole tree at once. The kernel notifies a poller of pids.events, but
 * not every version does (Linux 6.11 to 7.2 with cgroup v1), so it is read every WATCH_MS as well. When the tree has ended it reports the limits the
 * command reached on --report-fd, as words on one line: `processes` (a fork was refused), `memory` (the OOM
 * killer killed a process of it).
 */
#define _GNU_SOURCE
#include <dirent.h>
#include <sched.h>
#include <errno.h>
#include <fcntl.h>
#include <poll.h>
#include <signal.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/prctl.h>
#include <sys/resource.h>
#include <sys/signalfd.h>
#include <sys/syscall.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include "fail.h"
#include "launcher.h"

#define WATCH_MS 200

static const int FORWARDED[] = {SIGHUP, SIGINT, SIGQUIT, SIGTERM, SIGUSR1, SIGUSR2, SIGWINCH};

static int terminating(int sig) { return sig == SIGHUP || sig == SIGINT || sig == SIGQUIT || sig == SIGTERM; }

/* Visits the children found by scanning /proc, for kernels without the `children` file. */
static void each_child_by_scan(pid_t self, void (*visit)(pid_t)) {
  DIR *proc = opendir("/proc");
  if (!proc) return;
  for (struct dirent *e; (e = readdir(proc));) {
    char path[300], stat[512];
    if (e->d_name[0] < '0' || e->d_name[0] > '9') continue;
    snprintf(path, sizeof path, "/proc/%s/stat", e->d_name);
    int fd = open(path, O_RDONLY | O_CLOEXEC);
    if (fd < 0) continue;
    ssize_t n = read(fd, stat, sizeof stat - 1);
    close(fd);
    if (n <= 0) continue;
    stat[n] = '\0';
    /* "pid (comm) state ppid …": the command name may hold anything, so read after its last ')'. */
    char *after = strrchr(stat, ')');
    char state;
    int ppid;
    if (after && sscanf(after + 1, " %c %d", &state, &ppid) == 2 && ppid == self) visit((pid_t)atoi(e->d_name));
  }
  closedir(proc);
}

void each_child(void (*visit)(pid_t)) {
  pid_t self = getpid();
  char path[64];
  snprintf(path, sizeof path, "/proc/%d/task/%d/children", self, self);
  int fd = open(path, O_RDONLY | O_CLOEXEC);
  if (fd < 0) {
    each_child_by_scan(self, visit);
    return;
  }
  char buf[4096];
  long pid = 0;
  int digits = 0;
  for (ssize_t n; (n = read(fd, buf, sizeof buf)) > 0;) {
    for (ssize_t i = 0; i < n; i++) {
      if (buf[i] >= '0' && buf[i] <= '9') {
        pid = pid * 10 + (buf[i] - '0');
        digits = 1;
      } else if (digits) {
        visit((pid_t)pid);
        pid = 0;
        digits = 0;
      }
    }
  }
  if (digits) visit((pid_t)pid);
  close(fd);
}

static void kill_now(pid_t pid) { kill(pid, SIGKILL); }

/* SIGKILLs every current child: the command and every orphan re-parented to this subreaper. */
static void kill_children(void) { each_child(kill_now); }

/*
 * Kills the whole tree and reaps it: a killed process's own children are re-parented here, so the loop
 * goes on until no child at all is left. Records the command's status when it is reaped.
 */
static void end_tree(pid_t command, int *status) {
  for (;;) {
    int st;
    pid_t pid = waitpid(-1, &st, WNOHANG | __WALL);
    if (pid < 0 && errno == EINTR) continue;
    if (pid < 0) return; /* ECHILD: nothing is left */
    if (pid == 0) {
      kill_children(); /* some still run */
      pid = waitpid(-1, &st, __WALL);
    }
    if (pid == command) *status = st;
  }
}

/* Exits as the command did: with its status, or killed by its signal (without a core dump of our own). */
static void exit_like(int status) __attribute__((noreturn));
static void exit_like(int status) {
  if (WIFEXITED(status)) _exit(WEXITSTATUS(status));
  int sig = WTERMSIG(status);
  struct rlimit no_core = {0, 0};
  setrlimit(RLIMIT_CORE, &no_core);
  signal(sig, SIG_DFL);
  sigset_t only;
  sigemptyset(&only);
  sigaddset(&only, sig);
  sigprocmask(SIG_UNBLOCK, &only, NULL);
  kill(getpid(), sig);
  _exit(128 + sig);
}

/* clone3 (Linux 5.3) with CLONE_INTO_CGROUP (5.7): a fork whose child starts in the cgroup `dir`. */
static pid_t clone_into(int dir) {
  struct {
    uint64_t flags, pidfd, child_tid, parent_tid, exit_signal, stack, stack_size, tls, set_tid, set_tid_size,
        cgroup;
  } args = {.flags = 0x200000000ULL /* CLONE_INTO_CGROUP */, .exit_signal = SIGCHLD, .cgroup = (uint64_t)dir};
  return (pid_t)syscall(435 /* clone3 */, &args, sizeof args);
}

/* Writes the limits the command reached to the report descriptor, if there is one. */
static void report(const struct options *o, int processes, int memory) {
  if (o->report_fd < 0) return;
  char line[32];
  int n = snprintf(line, sizeof line, "%s%s%s\n", processes ? "processes" : "", processes && memory ? " " : "",
                   memory ? "memory" : "");
  if (write(o->report_fd, line, (size_t)n) < 0) return; /* nobody reads it any more */
}

static long remaining_ms(const struct timespec *deadline) {
  struct timespec now;
  clock_gettime(CLOCK_MONOTONIC, &now);
  return (deadline->tv_sec - now.tv_sec) * 1000 + (deadline->tv_nsec - now.tv_nsec) / 1000000;
}

/* What the child runs: on a stack of its own, since it may share the launcher's memory. */
static struct {
  struct options *o;
  void (*start)(struct options *, int);
  int abi;
  pid_t supervisor;
  sigset_t mask;
  int joins;
  int created_in_v2; /* made in the call's cgroup v2 by clone3: only the v1 ones are left to join */
} child;
static char child_stack[256 * 1024] __attribute__((aligned(16)));

static int run_child(void *unused) {
  (void)unused;
  sigprocmask(SIG_SETMASK, &child.mask, NULL);
  /* Should the launcher itself be killed outright, the command goes with it. (The first process of a new
   * PID namespace sees its parent as 0.) */
  if (prctl(PR_SET_PDEATHSIG, SIGKILL, 0, 0, 0) < 0 || (getppid() != child.supervisor && getppid() != 0))
    _exit(EXIT_POLICY);
  if (child.joins) cgroups_join(child.created_in_v2);
  child.start(child.o, child.abi);
  _exit(EXIT_POLICY);
}

void supervise(struct options *o, void (*start)(struct options *, int), int abi, int execs, int outermost) {
  pid_t parent = getppid();
  if (prctl(PR_SET_CHILD_SUBREAPER, 1, 0, 0, 0) < 0)
    fail(EXIT_POLICY, "cannot become the subreaper of the command's processes: %s", strerror(errno));
  if (prctl(PR_SET_PDEATHSIG, SIGTERM, 0, 0, 0) < 0)
    fail(EXIT_POLICY, "cannot follow the parent's death: %s", strerror(errno));
  if (getppid() != parent) _exit(EXIT_POLICY); /* the parent is already gone: nobody to run for */

  sigset_t handled, previous;
  sigemptyset(&handled);
  for (size_t i = 0; i < sizeof FORWARDED / sizeof FORWARDED[0]; i++) sigaddset(&handled, FORWARDED[i]);
  sigaddset(&handled, SIGCHLD);
  sigaddset(&handled, SIGPIPE);
  sigprocmask(SIG_BLOCK, &handled, &previous);
  int sfd = signalfd(-1, &handled, SFD_CLOEXEC);
  if (sfd < 0) fail(EXIT_POLICY, "signalfd: %s", strerror(errno));
  fflush(NULL);

  child.o = o;
  child.start = start;
  child.abi = abi;
  child.supervisor = getpid();
  child.mask = previous;
  child.joins = outermost;
  /* Created in the call's cgroup v2, where there is one (cgroup.c); a kernel without clone3's
   * CLONE_INTO_CGROUP (before 5.7), or that refuses it here, has the child join by writing instead. */
  int v2 = outermost ? cgroups_v2_dir() : -1;
  pid_t command = -1;
  if (v2 >= 0) {
    child.created_in_v2 = 1;
    command = clone_into(v2);
    if (command < 0 && errno == EAGAIN) {
      /* The group's other calls hold every task its pids.max allows: this one cannot even start. */
      report(o, 1, cgroups_finish());
      fail(EXIT_POLICY, "cannot start the command: its group is at its process limit");
    }
    child.created_in_v2 = command >= 0;
  }
  /* Sharing memory until the exec spares copying it: several times faster than fork where that is slow.
   * A child that stays (and may itself supervise, on that stack) gets a copy instead. */
  if (command < 0)
    command = execs ? clone(run_child, child_stack + sizeof child_stack, CLONE_VM | CLONE_VFORK | SIGCHLD, NULL)
                    : fork();
  if (command == 0) run_child(NULL);
  if (command < 0) fail(EXIT_POLICY, "cannot start the command: %s", strerror(errno));

  int status = 0;
  struct timespec deadline = {0, 0};
  int counting = 0, refused = 0;
  struct pollfd watched[1 + MAX_CGROUPS] = {{.fd = sfd, .events = POLLIN}};
  int nwatched = 1 + (outermost ? cgroups_watch(watched + 1) : 0);
  for (;;) {
    long ms = counting ? remaining_ms(&deadline) : -1;
    if (counting && ms <= 0) break;
    if (nwatched > 1 && (ms < 0 || ms > WATCH_MS)) ms = WATCH_MS;
    int ready = poll(watched, (nfds_t)nwatched, (int)ms);
    if (getppid() != parent) break;
    if (nwatched > 1 && cgroups_fork_refused()) {
      refused = 1; /* a fork bomb, or a tree at its group's limit: it ends now */
      break;
    }
    struct signalfd_siginfo info;
    if (ready <= 0 || !(watched[0].revents & POLLIN) || read(sfd, &info, sizeof info) != sizeof info) continue;
    int sig = (int)info.ssi_signo;
    if (sig == SIGCHLD) {
      int st, done = 0;
      for (pid_t pid; (pid = waitpid(-1, &st, WNOHANG | __WALL)) > 0;)
        if (pid == command) {
          status = st;
          done = 1;
        }
      if (done) break;
      continue;
    }
    if (sig == SIGPIPE || info.ssi_code > 0) continue; /* ssi_code > 0: the kernel's, e.g. a terminal's */
    kill(command, sig);
    if (terminating(sig) && !counting) {
      if (o->grace_ms == 0) break;
      clock_gettime(CLOCK_MONOTONIC, &deadline);
      deadline.tv_sec += o->grace_ms / 1000;
      deadline.tv_nsec += (o->grace_ms % 1000) * 1000000;
      if (deadline.tv_nsec >= 1000000000) {
        deadline.tv_sec++;
        deadline.tv_nsec -= 1000000000;
      }
      counting = 1;
    }
  }
  end_tree(command, &status);
  if (outermost) {
    refused |= cgroups_fork_refused();
    report(o, refused, cgroups_finish());
  }
  exit_like(status);
}
