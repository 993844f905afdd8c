/*
 * Dropping every capability before the command runs, so that a command started as root (as in containers
 * and CI) holds none inside: the bounding set (nothing can be regained, even through a later exec), the
 * ambient and inheritable sets, and the permitted and effective sets. The user id stays; no_new_privs stays.
 */
#define _GNU_SOURCE
#include <errno.h>
#include <string.h>
#include <sys/prctl.h>
#include <sys/syscall.h>
#include <unistd.h>

#include "fail.h"
#include "launcher.h"

#define CAPABILITY_VERSION_3 0x20080522
#define CAP_SETPCAP_ 8
#define PR_CAP_AMBIENT_ 47
#define PR_CAP_AMBIENT_CLEAR_ALL_ 4

struct cap_header {
  uint32_t version;
  int pid;
};

struct cap_data {
  uint32_t effective;
  uint32_t permitted;
  uint32_t inheritable;
};

static void get_caps(struct cap_data data[2]) {
  struct cap_header header = {CAPABILITY_VERSION_3, 0};
  if (syscall(SYS_capget, &header, data) < 0) fail(EXIT_POLICY, "capget: %s", strerror(errno));
}

int holds_capability(int cap) {
  struct cap_data data[2];
  get_caps(data);
  return (data[cap / 32].effective >> (cap % 32)) & 1;
}

void drop_capabilities(void) {
  struct cap_data data[2];
  if (holds_capability(CAP_SETPCAP_)) {
    /* Past the last capability the kernel knows, dropping fails with EINVAL. */
    int cap = 0;
    while (prctl(PR_CAPBSET_DROP, cap, 0, 0, 0) == 0) cap++;
    if (errno != EINVAL)
      fail(EXIT_POLICY, "cannot drop capability %d from the bounding set: %s", cap, strerror(errno));
  }
  /* Kernels before 4.3 have no ambient set (EINVAL): nothing to clear there. */
  if (prctl(PR_CAP_AMBIENT_, PR_CAP_AMBIENT_CLEAR_ALL_, 0, 0, 0) < 0 && errno != EINVAL)
    fail(EXIT_POLICY, "cannot clear the ambient capabilities: %s", strerror(errno));
  struct cap_header header = {CAPABILITY_VERSION_3, 0};
  memset(data, 0, sizeof(struct cap_data) * 2);
  if (syscall(SYS_capset, &header, data) < 0) fail(EXIT_POLICY, "cannot drop capabilities: %s", strerror(errno));
  get_caps(data);
  for (int i = 0; i < 2; i++)
    if (data[i].effective || data[i].permitted || data[i].inheritable)
      fail(EXIT_POLICY, "capabilities remain after dropping them");
}
