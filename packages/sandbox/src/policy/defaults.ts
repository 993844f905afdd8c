import type { PolicyLayer } from "./schema.js";

/**
 * The built-in policy every layer starts from: the system's programs and libraries, the few files under /etc
 * that programs need to run (not all of /etc: it holds secrets, and sessions may run as root), the working
 * directory and TMPDIR writable, and outgoing HTTP and HTTPS. Paths that do not exist are skipped.
 *
 * Limits: 512 tasks and a quarter of the RAM for each group of commands (an agent's, in toolsrv) — threads
 * count as tasks, and a Node process has about ten; files up to 1 GiB; an hour of CPU time per process (a
 * background command lives an hour at most). No user namespaces.
 */
export const DEFAULT_POLICY: PolicyLayer = {
  general: { best_effort: false, ignore_missing: true, user_namespaces: false },
  filesystem: {
    rox: ["/usr", "/bin", "/sbin", "/lib", "/lib64", "/lib32", "/libx32"],
    ro: [
      "/etc/ld.so.cache",
      "/etc/ld.so.conf",
      "/etc/ld.so.conf.d",
      "/etc/alternatives",
      "/etc/passwd",
      "/etc/group",
      "/etc/nsswitch.conf",
      "/etc/hosts",
      "/etc/host.conf",
      "/etc/resolv.conf",
      "/etc/gai.conf",
      "/etc/ssl",
      "/etc/ca-certificates",
      "/etc/localtime",
      "/etc/timezone",
      "/etc/mime.types",
      "/etc/magic",
      "/etc/gitconfig",
      "/etc/inputrc",
      "/etc/bash.bashrc",
      "/etc/profile",
      "/etc/environment",
      "/proc/self",
      "/dev/zero",
      "/dev/full",
      "/dev/random",
      "/dev/urandom",
    ],
    rw: ["{CWD}", "{TMPDIR}", "/dev/null"],
  },
  network: { enabled: true, unrestricted: false, bind_tcp: [], connect_tcp: [80, 443] },
  limits: { processes: 512, memory: "25%", file_size: "1GiB", cpu_time: "1h" },
};
