/*
 * launch: one command line of options and a command, parsed, then the steps that sandbox the command in
 * their order. Run by main.c for the launcher's own command line and by serve.c for each request.
 */
#define _GNU_SOURCE
#include <errno.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/prctl.h>
#include <sys/syscall.h>
#include <unistd.h>

#include "fail.h"
#include "launcher.h"
#include "rights.h"

static const char USAGE[] =
    "usage: ollie-sandbox-launcher [OPTIONS] [--] COMMAND [ARGS...]\n"
    "Runs COMMAND under Landlock and seccomp with no capabilities; its whole process tree ends with it.\n"
    "\n"
    "  --ro PATHS                 grant reading (comma-separated, repeatable)\n"
    "  --rox PATHS                grant reading and executing\n"
    "  --rw PATHS                 grant reading, writing, creating, renaming and removing\n"
    "  --rwx PATHS                grant all of --rw and executing\n"
    "  --no-follow PATH           a grant of PATH follows no symbolic link from / (repeatable): a path an\n"
    "                             agent may swap for a link, as the working directory a parent may write\n"
    "                             (a grant beneath a --rw or --rwx one never follows a link beneath it)\n"
    "  --bind-tcp PORTS           allow binding these TCP ports (0: any ephemeral port)\n"
    "  --connect-tcp PORTS        allow connecting to these TCP ports\n"
    "  --no-inet                  no IPv4 or IPv6 sockets at all\n"
    "  --unrestricted-filesystem  leave the filesystem unrestricted\n"
    "  --unrestricted-network     allow any TCP port (sockets other than TCP and UDP stay refused)\n"
    "  --unrestricted-scope       allow signals and abstract Unix sockets beyond the sandbox\n"
    "  --best-effort              drop what the kernel cannot enforce (never Landlock itself), and say so\n"
    "  --quiet                    do not say what best effort dropped\n"
    "  --ignore-missing           skip granted paths that do not exist\n"
    "  --abi-cap N                use at most Landlock ABI N (to try what an older kernel does)\n"
    "  --grace MS                 after a forwarded TERM, INT, HUP or QUIT, kill the tree after MS (default 500)\n"
    "  --log-new-exec             audit-log the command's denials (Landlock ABI 7)\n"
    "  --allow-namespaces         let the command create user namespaces (and the others they allow)\n"
    "  --cgroup DIR               run the command in a cgroup of its own under the group DIR (repeatable,\n"
    "                             one per hierarchy); a fork the group's pids.max refuses ends the command\n"
    "  --rlimit-data BYTES        RLIMIT_DATA of each process\n"
    "  --rlimit-fsize BYTES       RLIMIT_FSIZE: the largest file a process may write\n"
    "  --rlimit-cpu SECONDS       RLIMIT_CPU: SIGXCPU at SECONDS of CPU, SIGKILL a second later\n"
    "  --rlimit-nproc N           RLIMIT_NPROC (not for root): N tasks more than the user's when it starts\n"
    "  --report-fd FD             write the limits the command reached to FD when it has ended\n"
    "  --probe                    print what the kernel supports as JSON and exit\n"
    "  --serve                    (alone) start commands on request, read from stdin (see serve.c)\n"
    "  --peer-cred FD...          (alone) print the PID, UID and GID at the other end of each Unix socket FD\n"
    "  --version                  print the launcher's version and exit\n"
    "  --help                     print this and exit\n"
    "\n"
    "Exit status: the command's; 125 the sandbox cannot be applied, 126 cannot execute, 127 not found.\n";

/* A whole decimal number in [0, max], or a clear error naming the option. */
static long number(const char *flag, const char *text, long max) {
  char *end;
  errno = 0;
  long v = strtol(text, &end, 10);
  if (*text < '0' || *text > '9' || *end != '\0' || errno || v > max)
    fail(EXIT_POLICY, "%s: '%s' is not a whole number from 0 to %ld", flag, text, max);
  return v;
}

static void add_paths(struct options *o, char *list, uint64_t rights) {
  for (char *save = NULL, *p = strtok_r(list, ",", &save); p; p = strtok_r(NULL, ",", &save)) {
    if (o->npaths >= MAX_ITEMS) fail(EXIT_POLICY, "too many paths (at most %d)", MAX_ITEMS);
    o->paths[o->npaths].path = p;
    o->paths[o->npaths].rights = rights;
    o->npaths++;
  }
}

static void add_ports(uint64_t *ports, int *n, char *list, const char *flag) {
  for (char *save = NULL, *p = strtok_r(list, ",", &save); p; p = strtok_r(NULL, ",", &save)) {
    if (*n >= MAX_ITEMS) fail(EXIT_POLICY, "too many ports (at most %d)", MAX_ITEMS);
    ports[(*n)++] = (uint64_t)number(flag, p, 65535);
  }
}

static const char *const SWITCHES[] = {"--unrestricted-filesystem", "--unrestricted-network",
                                       "--unrestricted-scope",      "--no-inet",
                                       "--best-effort",             "--ignore-missing",
                                       "--log-new-exec",            "--quiet",
                                       "--allow-namespaces"};

static int *switch_field(struct options *o, int i) {
  int *fields[] = {&o->unrestricted_fs, &o->unrestricted_net, &o->unrestricted_scope,
                   &o->no_inet,         &o->best_effort,      &o->ignore_missing,
                   &o->log_new_exec,    &o->quiet,            &o->allow_namespaces};
  return fields[i];
}

/* The options with a number of their own: where each goes. */
static long *limit_field(struct options *o, const char *flag) {
  if (strcmp(flag, "--rlimit-data") == 0) return &o->rlimit_data;
  if (strcmp(flag, "--rlimit-fsize") == 0) return &o->rlimit_fsize;
  if (strcmp(flag, "--rlimit-cpu") == 0) return &o->rlimit_cpu;
  if (strcmp(flag, "--rlimit-nproc") == 0) return &o->rlimit_nproc;
  return NULL;
}

enum action { RUN, PROBE, VERSION, HELP };

static enum action parse(int argc, char **argv, struct options *o) {
  o->abi_cap = LAUNCHER_ABI;
  o->grace_ms = DEFAULT_GRACE_MS;
  o->rlimit_data = o->rlimit_fsize = o->rlimit_cpu = o->rlimit_nproc = NO_LIMIT;
  o->report_fd = -1;
  enum action action = RUN;
  int i = 1;
  for (; i < argc && argv[i][0] == '-'; i++) {
    char *flag = argv[i];
    if (strcmp(flag, "--") == 0) {
      i++;
      break;
    }
    if (strcmp(flag, "--probe") == 0) action = PROBE;
    else if (strcmp(flag, "--version") == 0) action = VERSION;
    else if (strcmp(flag, "--help") == 0 || strcmp(flag, "-h") == 0) action = HELP;
    else {
      int matched = 0;
      for (size_t s = 0; s < sizeof SWITCHES / sizeof SWITCHES[0]; s++)
        if (strcmp(flag, SWITCHES[s]) == 0) matched = *switch_field(o, (int)s) = 1;
      if (matched) continue;
      /* Options with a value: "--flag VALUE" or "--flag=VALUE". */
      char *value = strchr(flag, '=');
      if (value) *value++ = '\0';
      else if (i + 1 < argc) value = argv[++i];
      else fail(EXIT_POLICY, "%s needs a value (see --help)", flag);
      uint64_t rights = landlock_rights(flag);
      long *limit = limit_field(o, flag);
      if (rights) add_paths(o, value, rights);
      else if (limit) *limit = number(flag, value, LONG_MAX);
      else if (strcmp(flag, "--no-follow") == 0) {
        if (o->nno_follow >= MAX_NO_FOLLOW) fail(EXIT_POLICY, "too many --no-follow (at most %d)", MAX_NO_FOLLOW);
        if (value[0] != '/') fail(EXIT_POLICY, "--no-follow %s: the path must be absolute", value);
        o->no_follow[o->nno_follow++] = value;
      } else if (strcmp(flag, "--cgroup") == 0) {
        if (o->ncgroups >= MAX_CGROUPS) fail(EXIT_POLICY, "too many cgroups (at most %d)", MAX_CGROUPS);
        o->cgroups[o->ncgroups++] = value;
      } else if (strcmp(flag, "--report-fd") == 0) o->report_fd = (int)number(flag, value, 65535);
      else if (strcmp(flag, "--bind-tcp") == 0) add_ports(o->bind_ports, &o->nbind, value, flag);
      else if (strcmp(flag, "--connect-tcp") == 0) add_ports(o->connect_ports, &o->nconnect, value, flag);
      else if (strcmp(flag, "--abi-cap") == 0) o->abi_cap = (int)number(flag, value, 99);
      else if (strcmp(flag, "--grace") == 0) o->grace_ms = number(flag, value, 3600000);
      else fail(EXIT_POLICY, "unknown option %s (see --help)", flag);
    }
  }
  o->command = argv + i;
  if (action == RUN && !o->command[0]) fail(EXIT_POLICY, "no command given (see --help)");
  return action;
}

/* Only standard input, output and error reach the command: an inherited descriptor keeps its access. */
static void close_other_fds(void) {
  if (syscall(436 /* close_range */, 3U, ~0U, 0U) == 0) return;
  long max = sysconf(_SC_OPEN_MAX);
  if (max < 0 || max > 65536) max = 65536;
  for (int fd = 3; fd < max; fd++) close(fd);
}

/* In the supervised child: sandbox this process, then become the command. */
static void start_command(struct options *o, int abi) {
  own_proc(o);
  apply_rlimits(o);
  if (prctl(PR_SET_NO_NEW_PRIVS, 1, 0, 0, 0) < 0) fail(EXIT_POLICY, "no_new_privs: %s", strerror(errno));
  apply_landlock(o, abi);
  drop_capabilities();
  apply_seccomp(o);
  close_other_fds();
  execvp(o->command[0], o->command);
  int err = errno;
  if (err == ENOENT) fail(EXIT_NOT_FOUND, "%s: command not found", o->command[0]);
  fail(EXIT_EXEC, "%s: cannot execute: %s", o->command[0], strerror(err));
}

/* In the first process of a new PID namespace: mount its /proc, then stay as its init for the command. */
static void init_then_command(struct options *o, int abi) {
  own_proc(o);
  supervise(o, start_command, abi, 1, 0);
}

#define CAP_SYS_ADMIN_ 21

void launch(int argc, char **argv) {
  static struct options o;
  memset(&o, 0, sizeof o);
  enum action action = parse(argc, argv, &o);
  if (action == HELP) {
    fputs(USAGE, stdout);
    exit(0);
  }
  if (action == VERSION) {
    printf("ollie-sandbox-launcher %d (Landlock ABI up to %d, %s)\n", LAUNCHER_REVISION, LAUNCHER_ABI, ARCH_NAME);
    exit(0);
  }
  int kabi = kernel_abi();
  int abi = kabi < o.abi_cap ? kabi : o.abi_cap;
  if (abi > LAUNCHER_ABI) abi = LAUNCHER_ABI;
  if (action == PROBE) {
    printf("{\"abi\":%d,\"kernelAbi\":%d,\"launcherAbi\":%d,\"errata\":%ld,\"arch\":\"%s\",\"revision\":%d}\n",
           abi, kabi, LAUNCHER_ABI, kernel_errata(), ARCH_NAME, LAUNCHER_REVISION);
    exit(0);
  }
  if (abi == 0)
    fail(EXIT_POLICY, "Landlock is not available (kernel ABI %d%s); refusing to run unsandboxed", kabi,
         kabi > 0 ? ", capped to 0" : ": needs Linux 5.13+ with landlock in the lsm= list");
  /* Made by the launcher as itself, before a user namespace; the command joins them (supervise.c). */
  cgroups_make(&o);
  int namespaced = wants_own_proc(&o) && !holds_capability(CAP_SYS_ADMIN_) && enter_user_namespace();
  rlimits_prepare(&o, namespaced);
  /* The namespace's init stays, so it is a copy of the launcher; a command execs, so it may share memory. */
  supervise(&o, namespaced ? init_then_command : start_command, abi, !namespaced, 1);
}
