/*
 * The seccomp filter: what Landlock cannot see.
 *
 *  - sockets: AF_UNIX any; AF_INET/AF_INET6 only as TCP (SOCK_STREAM, protocol 0 or IPPROTO_TCP) and, when
 *    the network is enabled, UDP (DNS); AF_NETLINK only as NETLINK_ROUTE (glibc's getaddrinfo needs it).
 *    Other families are refused with EAFNOSUPPORT, other types and protocols (raw, packet, MPTCP, ICMP)
 *    with EPERM. Landlock's TCP port rules apply only to plain TCP sockets, hence the allow-list.
 *  - io_uring: refused (ENOSYS, so programs fall back to plain system calls); its operations, socket
 *    creation among them, are not seen by the checks above.
 *  - TIOCSTI and TIOCLINUX: pushing input into a terminal the command inherited would run it outside.
 *  - kernel keyrings (keyctl, add_key, request_key): shared with the user's other processes, unseen by
 *    Landlock; refused with ENOSYS, as on a kernel built without them.
 *  - namespaces, unless --allow-namespaces: clone and unshare with a CLONE_NEW* flag fail with EPERM. Without
 *    capabilities only a user namespace could be made, and inside it every other kind, with its own root:
 *    kernel code reachable by no one else, and a way to look like root to the command's children. clone3
 *    fails with ENOSYS (its flags are in memory, out of the filter's sight), so the C library falls back to
 *    clone. The launcher's own namespaces (proc.c) are made before the filter is applied.
 *  - another architecture's system calls (i386 via int 0x80, x32): the process is killed or refused.
 */
#define _GNU_SOURCE
#include <errno.h>
#include <stddef.h>
#include <string.h>
#include <sys/prctl.h>
#include <sys/syscall.h>

#include "fail.h"
#include "launcher.h"

#define SECCOMP_MODE_FILTER_ 2
#define RET_KILL_PROCESS 0x80000000U
#define RET_ERRNO 0x00050000U
#define RET_ALLOW 0x7fff0000U

#define BPF_LD_W_ABS 0x20 /* BPF_LD | BPF_W | BPF_ABS */
#define BPF_AND_K 0x54    /* BPF_ALU | BPF_AND | BPF_K */
#define BPF_JEQ_K 0x15    /* BPF_JMP | BPF_JEQ | BPF_K */
#define BPF_JSET_K 0x45   /* BPF_JMP | BPF_JSET | BPF_K */
#define BPF_RET_K 0x06    /* BPF_RET | BPF_K */

/* struct seccomp_data: nr, arch, instruction pointer, then six 64-bit arguments (the low half first). */
#define DATA_NR 0
#define DATA_ARCH 4
#define DATA_ARG_LO(n) (16 + 8 * (n))

#define AF_UNIX_ 1
#define AF_INET_ 2
#define AF_INET6_ 10
#define AF_NETLINK_ 16
#define SOCK_STREAM_ 1
#define SOCK_DGRAM_ 2
#define SOCK_TYPE_MASK_ 0xf
#define IPPROTO_TCP_ 6
#define IPPROTO_UDP_ 17
#define NETLINK_ROUTE_ 0
#define TIOCSTI_ 0x5412
#define TIOCLINUX_ 0x541C
#define NR_io_uring_setup 425
#define NR_io_uring_enter 426
#define NR_io_uring_register 427
#define NR_clone3 435
/* CLONE_NEWNS, NEWCGROUP, NEWUTS, NEWIPC, NEWUSER, NEWPID, NEWNET; unshare also takes NEWTIME (in clone the
 * low byte is the exit signal). */
#define CLONE_NEW_ANY 0x7e020000U
#define CLONE_NEWTIME_ 0x00000080U

#if defined(__x86_64__)
#define AUDIT_ARCH_NATIVE 0xC000003EU
#define X32_SYSCALL_BIT 0x40000000U
#elif defined(__aarch64__)
#define AUDIT_ARCH_NATIVE 0xC00000B7U
#endif

struct bpf_insn_ {
  uint16_t code;
  uint8_t jt;
  uint8_t jf;
  uint32_t k;
};

struct bpf_prog_ {
  unsigned short len;
  struct bpf_insn_ *filter;
};

/*
 * A tiny assembler: jumps name labels, resolved to relative offsets once the program is complete. Classic
 * BPF jumps only forward, so every label comes after the jumps to it.
 */
enum label { NEXT = -1, L_ALLOW, L_EPERM, L_ENOSYS, L_SOCKET, L_INET, L_STREAM, L_DGRAM,
             L_NETLINK, L_SOCKETPAIR, L_IOCTL, L_CLONE, L_UNSHARE, L_KILL, N_LABELS };

struct program {
  struct bpf_insn_ insn[96];
  int jt[96], jf[96];
  int label_at[N_LABELS];
  int n;
};

static void emit(struct program *p, uint16_t code, uint32_t k, int jt, int jf) {
  p->insn[p->n] = (struct bpf_insn_){.code = code, .k = k};
  p->jt[p->n] = jt;
  p->jf[p->n] = jf;
  p->n++;
}

static void label(struct program *p, enum label l) { p->label_at[l] = p->n; }
static void load(struct program *p, uint32_t offset) { emit(p, BPF_LD_W_ABS, offset, NEXT, NEXT); }
static void jump_if(struct program *p, uint32_t value, enum label to) { emit(p, BPF_JEQ_K, value, to, NEXT); }
static void ret(struct program *p, uint32_t action) { emit(p, BPF_RET_K, action, NEXT, NEXT); }

static void resolve(struct program *p) {
  for (int i = 0; i < p->n; i++) {
    int targets[2] = {p->jt[i], p->jf[i]};
    uint8_t *fields[2] = {&p->insn[i].jt, &p->insn[i].jf};
    for (int j = 0; j < 2; j++) {
      int offset = targets[j] == NEXT ? 0 : p->label_at[targets[j]] - i - 1;
      if (offset < 0 || offset > 255) fail(EXIT_POLICY, "seccomp: bad jump at instruction %d", i);
      *fields[j] = (uint8_t)offset;
    }
  }
}

void apply_seccomp(const struct options *o) {
  struct program p;
  memset(&p, 0, sizeof p);

  load(&p, DATA_ARCH);
  emit(&p, BPF_JEQ_K, AUDIT_ARCH_NATIVE, NEXT, L_KILL);
  load(&p, DATA_NR);
#ifdef X32_SYSCALL_BIT
  emit(&p, BPF_JSET_K, X32_SYSCALL_BIT, L_ENOSYS, NEXT);
#endif
  jump_if(&p, SYS_socket, L_SOCKET);
  jump_if(&p, SYS_socketpair, L_SOCKETPAIR);
  jump_if(&p, SYS_ioctl, L_IOCTL);
  jump_if(&p, NR_io_uring_setup, L_ENOSYS);
  jump_if(&p, NR_io_uring_enter, L_ENOSYS);
  jump_if(&p, NR_io_uring_register, L_ENOSYS);
  jump_if(&p, SYS_keyctl, L_ENOSYS);
  jump_if(&p, SYS_add_key, L_ENOSYS);
  jump_if(&p, SYS_request_key, L_ENOSYS);
  if (!o->allow_namespaces) {
    jump_if(&p, SYS_clone, L_CLONE);
    jump_if(&p, SYS_unshare, L_UNSHARE);
    jump_if(&p, NR_clone3, L_ENOSYS);
  }
  ret(&p, RET_ALLOW);

  if (!o->allow_namespaces) {
    /* The flags are the first argument of both, on x86-64 and aarch64 alike, every CLONE_NEW* in the low half. */
    label(&p, L_CLONE);
    load(&p, DATA_ARG_LO(0));
    emit(&p, BPF_JSET_K, CLONE_NEW_ANY, L_EPERM, NEXT);
    ret(&p, RET_ALLOW);
    label(&p, L_UNSHARE);
    load(&p, DATA_ARG_LO(0));
    emit(&p, BPF_JSET_K, CLONE_NEW_ANY | CLONE_NEWTIME_, L_EPERM, NEXT);
    ret(&p, RET_ALLOW);
  }

  label(&p, L_SOCKET);
  load(&p, DATA_ARG_LO(0));
  jump_if(&p, AF_UNIX_, L_ALLOW);
  jump_if(&p, AF_INET_, L_INET);
  jump_if(&p, AF_INET6_, L_INET);
  jump_if(&p, AF_NETLINK_, L_NETLINK);
  ret(&p, RET_ERRNO | EAFNOSUPPORT);

  label(&p, L_INET);
  if (o->no_inet) {
    ret(&p, RET_ERRNO | EPERM);
  } else {
    /* SOCK_NONBLOCK and SOCK_CLOEXEC ride in the type; the kernel refuses any other bit above the mask. */
    load(&p, DATA_ARG_LO(1));
    emit(&p, BPF_AND_K, SOCK_TYPE_MASK_, NEXT, NEXT);
    jump_if(&p, SOCK_STREAM_, L_STREAM);
    jump_if(&p, SOCK_DGRAM_, L_DGRAM);
    ret(&p, RET_ERRNO | EPERM);
    label(&p, L_STREAM);
    load(&p, DATA_ARG_LO(2));
    jump_if(&p, 0, L_ALLOW);
    jump_if(&p, IPPROTO_TCP_, L_ALLOW);
    ret(&p, RET_ERRNO | EPERM);
    label(&p, L_DGRAM);
    load(&p, DATA_ARG_LO(2));
    jump_if(&p, 0, L_ALLOW);
    jump_if(&p, IPPROTO_UDP_, L_ALLOW);
    ret(&p, RET_ERRNO | EPERM);
  }

  label(&p, L_NETLINK);
  load(&p, DATA_ARG_LO(2));
  jump_if(&p, NETLINK_ROUTE_, L_ALLOW);
  ret(&p, RET_ERRNO | EPERM);

  label(&p, L_SOCKETPAIR);
  load(&p, DATA_ARG_LO(0));
  jump_if(&p, AF_UNIX_, L_ALLOW);
  ret(&p, RET_ERRNO | EAFNOSUPPORT);

  label(&p, L_IOCTL);
  load(&p, DATA_ARG_LO(1));
  jump_if(&p, TIOCSTI_, L_EPERM);
  jump_if(&p, TIOCLINUX_, L_EPERM);
  ret(&p, RET_ALLOW);

  label(&p, L_ALLOW);
  ret(&p, RET_ALLOW);
  label(&p, L_EPERM);
  ret(&p, RET_ERRNO | EPERM);
  label(&p, L_ENOSYS);
  ret(&p, RET_ERRNO | ENOSYS);
  label(&p, L_KILL);
  ret(&p, RET_KILL_PROCESS);

  resolve(&p);
  struct bpf_prog_ prog = {.len = (unsigned short)p.n, .filter = p.insn};
  if (prctl(PR_SET_SECCOMP, SECCOMP_MODE_FILTER_, &prog) < 0) fail(EXIT_POLICY, "seccomp: %s", strerror(errno));
}
