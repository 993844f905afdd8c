/*
 * Opening what a policy grants without following a link an agent could have made (see open_grant).
 *
 * Landlock grants the file a rule's descriptor refers to, so whoever can change what a path leads to between
 * the policy being written and the rule being added chooses what is granted. Two kinds of path can be changed
 * by an agent: one inside a tree some agent may write (a grant of `{CWD}/build` when `{CWD}` is writable: the
 * agent makes `build` a link to the owner's home), and the working directory itself when an agent may write
 * the directory above it (a parent agent's, holding a child session's). The first kind is opened from the
 * writable grant component by component and refused at any link; the second is named by `--no-follow` and
 * opened from `/` the same way. The launcher enters the working directory by its path: a link there takes the
 * command elsewhere, but grants it nothing there.
 */
#define _GNU_SOURCE
#include <errno.h>
#include <fcntl.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "launcher.h"
#include "rights.h"

/* Whether `path` lies strictly beneath the directory `dir`. */
static int beneath(const char *path, const char *dir) {
  size_t n = strlen(dir);
  while (n > 1 && dir[n - 1] == '/') n--;
  if (n == 1 && dir[0] == '/') return path[0] == '/' && path[1] != '\0';
  return strncmp(path, dir, n) == 0 && path[n] == '/' && path[n + 1] != '\0';
}

/* The outermost writable grant that `g` lies beneath, or NULL. */
static const struct path_grant *writable_above(const struct options *o, const struct path_grant *g) {
  const struct path_grant *above = NULL;
  for (int i = 0; i < o->npaths; i++) {
    const struct path_grant *w = &o->paths[i];
    if (!landlock_writes(w->rights) || !beneath(g->path, w->path)) continue;
    if (!above || beneath(above->path, w->path)) above = w;
  }
  return above;
}

/*
 * Opens `rest`, a relative path, beneath `dir` one component at a time with O_PATH, following no link:
 * -1 with errno ELOOP at a link (or a `..`, which could climb out), else the errno of the component that
 * failed.
 */
static int open_without_links(int dir, const char *rest) {
  char part[4096];
  int fd = dup(dir);
  if (fd < 0) return -1;
  for (const char *p = rest; *p;) {
    while (*p == '/') p++;
    if (!*p) break;
    size_t n = strcspn(p, "/");
    if (n >= sizeof part) {
      close(fd);
      errno = ENAMETOOLONG;
      return -1;
    }
    memcpy(part, p, n);
    part[n] = '\0';
    p += n;
    if (strcmp(part, ".") == 0) continue;
    struct stat st;
    int next = strcmp(part, "..") == 0 ? (errno = ELOOP, -1) : openat(fd, part, O_PATH | O_NOFOLLOW | O_CLOEXEC);
    close(fd);
    if (next < 0) return -1;
    if (fstat(next, &st) < 0 || S_ISLNK(st.st_mode)) {
      close(next);
      errno = ELOOP;
      return -1;
    }
    fd = next;
  }
  return fd;
}

/* Whether `--no-follow` names `path`. */
static int named_no_follow(const struct options *o, const char *path) {
  for (int i = 0; i < o->nno_follow; i++)
    if (strcmp(o->no_follow[i], path) == 0) return 1;
  return 0;
}

/* `rest` opened beneath the grant `above` (itself opened as open_grant opens any), following no link. */
static int open_beneath(const struct options *o, const struct path_grant *above, const char *rest) {
  int dir = open_grant(o, above);
  if (dir < 0) return -1;
  int fd = open_without_links(dir, rest);
  int saved = errno;
  close(dir);
  errno = saved;
  return fd;
}

int open_grant(const struct options *o, const struct path_grant *g) {
  const struct path_grant *w = writable_above(o, g);
  if (w) return open_beneath(o, w, g->path + strlen(w->path));
  if (named_no_follow(o, g->path)) {
    const struct path_grant root = {.path = "/", .rights = 0};
    return open_beneath(o, &root, g->path);
  }
  return open(g->path, O_PATH | O_CLOEXEC);
}
