/*
 * ollie-sandbox-launcher: run a command under Landlock and seccomp, with no capabilities, and end its whole
 * process tree with it. `--help` lists the options; launcher.h lists the parts.
 *
 * Exit status: the command's own (or its terminating signal); 125 when the sandbox cannot be applied, 126
 * when the command cannot be executed, 127 when it is not found.
 */
#include <string.h>

#include "launcher.h"

int main(int argc, char **argv) {
  if (argc == 2 && strcmp(argv[1], "--serve") == 0) serve();
  if (argc >= 3 && strcmp(argv[1], "--peer-cred") == 0) peer_cred(argc - 2, argv + 2);
  launch(argc, argv);
}
