import { existsSync, mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { createConnection, createServer } from "node:net";
import { tmpdir, userInfo } from "node:os";
import { join } from "node:path";
import { execa, type ResultPromise } from "execa";

/** The distribution's OpenSSH server, when it is installed (.ci/run installs it). */
export const SSHD = ["/usr/sbin/sshd", "/usr/bin/sshd"].find((p) => existsSync(p));

/**
 * A real sshd on a loopback port, with its own host key, and a user key it accepts for the account running
 * the tests — a "remote host" that is this machine. `sshOptions` are what a user's ~/.ssh/config would
 * say for it (the key, the port, a known_hosts file that has the host key): host keys are checked.
 */
export interface TestSshd {
  /** `user@127.0.0.1`. */
  destination: string;
  port: number;
  dir: string;
  /** ssh options that reach this server: `-F` of a config file naming the key, port and known hosts. */
  sshOptions: string[];
  /** The ssh config file those options name. */
  configFile: string;
  /**
   * What the host's sessions get in their environment, each a directory of its own under `dir`: its TMPDIR
   * (so the shared /tmp is not the host's) and its own XDG configuration and data homes.
   */
  env: { TMPDIR: string; XDG_CONFIG_HOME: string; XDG_DATA_HOME: string };
  /** sshd's log. */
  log(): string;
  /** Replaces the known_hosts entry with another key: the host key no longer matches. */
  forgeHostKey(): Promise<void>;
  stop(): Promise<void>;
}

async function freePort(): Promise<number> {
  const server = createServer();
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
  const { port } = server.address() as { port: number };
  await new Promise<void>((resolve) => server.close(() => resolve()));
  return port;
}

/** True once something on `port` speaks SSH (its banner), the server's own readiness. */
async function speaksSsh(port: number): Promise<boolean> {
  return new Promise((resolve) => {
    const socket = createConnection({ host: "127.0.0.1", port });
    socket.once("data", (chunk) => {
      socket.destroy();
      resolve(chunk.toString().startsWith("SSH-2.0-"));
    });
    socket.once("error", () => resolve(false));
  });
}

export async function startSshd(): Promise<TestSshd> {
  if (!SSHD) throw new Error("no sshd here: install openssh-server");
  const dir = mkdtempSync(join(tmpdir(), "ollie-sshd-"));
  const keygen = (file: string) =>
    execa("ssh-keygen", ["-q", "-t", "ed25519", "-N", "", "-f", join(dir, file)]);
  await Promise.all([keygen("host_key"), keygen("user_key"), keygen("other_host_key")]);
  writeFileSync(join(dir, "authorized_keys"), readFileSync(join(dir, "user_key.pub")));
  const port = await freePort();
  const env = {
    TMPDIR: join(dir, "host-tmp"),
    XDG_CONFIG_HOME: join(dir, "host-config"),
    XDG_DATA_HOME: join(dir, "host-data"),
  };
  for (const home of Object.values(env)) mkdirSync(home);
  writeFileSync(
    join(dir, "sshd_config"),
    [
      `ListenAddress 127.0.0.1:${port}`,
      `HostKey ${join(dir, "host_key")}`,
      `AuthorizedKeysFile ${join(dir, "authorized_keys")}`,
      `PidFile ${join(dir, "sshd.pid")}`,
      "PasswordAuthentication no",
      "KbdInteractiveAuthentication no",
      "UsePAM no",
      // The key files live under the OS temp dir, whose modes StrictModes would refuse.
      "StrictModes no",
      "AllowStreamLocalForwarding yes",
      "StreamLocalBindUnlink yes",
      "LogLevel VERBOSE",
      `SetEnv ${Object.entries(env)
        .map(([name, value]) => `${name}=${value}`)
        .join(" ")}`,
      "",
    ].join("\n"),
  );
  // Privilege separation needs its directory when sshd runs as root.
  if (process.getuid?.() === 0) mkdirSync("/run/sshd", { recursive: true, mode: 0o755 });
  const hostKey = readFileSync(join(dir, "host_key.pub"), "utf8").split(" ").slice(0, 2).join(" ");
  writeFileSync(join(dir, "known_hosts"), `[127.0.0.1]:${port} ${hostKey}\n`);
  const configFile = join(dir, "ssh_config");
  writeFileSync(
    configFile,
    [
      "Host 127.0.0.1",
      `  Port ${port}`,
      `  IdentityFile ${join(dir, "user_key")}`,
      "  IdentitiesOnly yes",
      `  UserKnownHostsFile ${join(dir, "known_hosts")}`,
      "  StrictHostKeyChecking yes",
      "",
    ].join("\n"),
  );
  const child: ResultPromise = execa(SSHD, ["-D", "-e", "-f", join(dir, "sshd_config")], {
    reject: false,
    // Its sessions inherit these: no pipe may be left for the wait on sshd's end to wait on.
    stdin: "ignore",
    stdout: "ignore",
    stderr: { file: join(dir, "sshd.log") },
  });
  // Ready when it answers with the SSH banner (bounded: a server that never comes up fails the start).
  for (const until = Date.now() + 10_000; !(await speaksSsh(port)); ) {
    if (child.exitCode !== null)
      throw new Error(`sshd exited: ${readFileSync(join(dir, "sshd.log"), "utf8")}`);
    if (Date.now() > until) throw new Error(`sshd did not serve on port ${port}`);
    await new Promise((r) => setTimeout(r, 50));
  }
  return {
    destination: `${userInfo().username}@127.0.0.1`,
    port,
    dir,
    sshOptions: ["-F", configFile],
    configFile,
    env,
    log: () => readFileSync(join(dir, "sshd.log"), "utf8"),
    forgeHostKey: async () => {
      const other = readFileSync(join(dir, "other_host_key.pub"), "utf8").split(" ").slice(0, 2).join(" ");
      writeFileSync(join(dir, "known_hosts"), `[127.0.0.1]:${port} ${other}\n`);
    },
    stop: async () => {
      child.kill("SIGTERM");
      await child;
      rmSync(dir, { recursive: true, force: true });
    },
  };
}
