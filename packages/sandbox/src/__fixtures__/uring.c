/*
 * A test helper: makes a socket through io_uring (IORING_OP_SOCKET, no liburing), connects it to a port on
 * loopback and prints what it reads, or the error. `uring tcp|mptcp PORT`.
 */
#include <arpa/inet.h>
#include <errno.h>
#include <linux/io_uring.h>
#include <netinet/in.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/socket.h>
#include <sys/syscall.h>
#include <unistd.h>

static int fail_with(const char *what) {
  printf("%s: %s\n", what, strerror(errno));
  return 1;
}

int main(int argc, char **argv) {
  if (argc < 3) {
    fprintf(stderr, "usage: uring tcp|mptcp PORT\n");
    return 2;
  }
  struct io_uring_params p;
  memset(&p, 0, sizeof p);
  int ring = (int)syscall(__NR_io_uring_setup, 4, &p);
  if (ring < 0) return fail_with("io_uring_setup");
  size_t sq_size = p.sq_off.array + p.sq_entries * sizeof(unsigned);
  size_t cq_size = p.cq_off.cqes + p.cq_entries * sizeof(struct io_uring_cqe);
  char *sq = mmap(NULL, sq_size, PROT_READ | PROT_WRITE, MAP_SHARED, ring, IORING_OFF_SQ_RING);
  char *cq = mmap(NULL, cq_size, PROT_READ | PROT_WRITE, MAP_SHARED, ring, IORING_OFF_CQ_RING);
  struct io_uring_sqe *sqes =
      mmap(NULL, p.sq_entries * sizeof *sqes, PROT_READ | PROT_WRITE, MAP_SHARED, ring, IORING_OFF_SQES);
  if (sq == MAP_FAILED || cq == MAP_FAILED || sqes == MAP_FAILED) return fail_with("mmap");

  memset(&sqes[0], 0, sizeof sqes[0]);
  sqes[0].opcode = IORING_OP_SOCKET;
  sqes[0].fd = AF_INET;
  sqes[0].off = SOCK_STREAM;
  sqes[0].len = strcmp(argv[1], "mptcp") == 0 ? 262 : IPPROTO_TCP;
  unsigned *tail = (unsigned *)(sq + p.sq_off.tail);
  ((unsigned *)(sq + p.sq_off.array))[*tail & *(unsigned *)(sq + p.sq_off.ring_mask)] = 0;
  __atomic_store_n(tail, *tail + 1, __ATOMIC_RELEASE);
  if (syscall(__NR_io_uring_enter, ring, 1, 1, IORING_ENTER_GETEVENTS, NULL, 0) < 0)
    return fail_with("io_uring_enter");
  unsigned head = *(unsigned *)(cq + p.cq_off.head);
  struct io_uring_cqe *cqe =
      (struct io_uring_cqe *)(cq + p.cq_off.cqes) + (head & *(unsigned *)(cq + p.cq_off.ring_mask));
  if (cqe->res < 0) {
    errno = -cqe->res;
    return fail_with("IORING_OP_SOCKET");
  }
  int s = cqe->res;
  struct sockaddr_in a;
  memset(&a, 0, sizeof a);
  a.sin_family = AF_INET;
  a.sin_port = htons(atoi(argv[2]));
  a.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
  if (connect(s, (struct sockaddr *)&a, sizeof a) < 0) return fail_with("connect");
  char buf[64];
  ssize_t n = read(s, buf, sizeof buf - 1);
  if (n < 0) return fail_with("read");
  buf[n] = '\0';
  printf("read: %s", buf);
  return 0;
}
