/*
 * fail: the launcher's error exit (fail.h), shared by every part.
 */
#define _GNU_SOURCE
#include "fail.h"

#include <stdarg.h>
#include <stdio.h>
#include <unistd.h>

/* One write and _exit: safe in the child that shares the launcher's memory until it execs. */
void fail(int status, const char *fmt, ...) {
  char line[1024];
  int n = snprintf(line, sizeof line, "ollie-sandbox: ");
  va_list ap;
  va_start(ap, fmt);
  n += vsnprintf(line + n, sizeof line - (size_t)n - 1, fmt, ap);
  va_end(ap);
  if (n > (int)sizeof line - 2) n = (int)sizeof line - 2;
  line[n++] = '\n';
  if (write(2, line, (size_t)n) < 0) _exit(status);
  _exit(status);
}
