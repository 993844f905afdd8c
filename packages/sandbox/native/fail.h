/*
 * fail: the launcher's one way to give up. Every part calls it; it calls nothing of theirs, so it sits in a
 * file of its own (fail.c) that the others depend on, and main.c is no one's dependency.
 */
#ifndef OLLIE_SANDBOX_FAIL_H
#define OLLIE_SANDBOX_FAIL_H

/* Writes `ollie-sandbox: MESSAGE` to stderr and exits with `status`, in one write and an _exit. */
void fail(int status, const char *fmt, ...) __attribute__((noreturn, format(printf, 2, 3)));

#endif
