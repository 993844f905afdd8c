import { createHash } from "node:crypto";
import { mkdir, rm } from "node:fs/promises";
import { join } from "node:path";
import { execa, type Options, type ResultPromise } from "execa";

/** How long a master connection may take to come up (ssh's own ConnectTimeout may be shorter). */
const CONNECT_MS = 60_000;

/** ssh failed to reach a host, or lost it: the reason is ssh's own words. */
export class SshError extends Error {
  override readonly name = "SshError";
  constructor(
    readonly destination: string,
    readonly reason: string,
  ) {
    super(`ssh to ${destination}: ${reason}`);
  }
}

export interface SshMasterOptions {
  /** `[user@]host`. */
  destination: string;
  /** Where the control socket goes (the daemon's runtime directory). */
  controlDir: string;
  /** Options before the destination, e.g. `-F FILE`, `-o ServerAliveInterval=15` (the host's configured ones). */
  sshOptions?: readonly string[];
  /** The ssh program (default: `ssh` from PATH). */
  ssh?: string;
}

/** ssh's last non-empty stderr line: its reason. */
const reasonOf = (stderr: string) =>
  stderr
    .split("\n")
    .map((l) => l.trim())
    .filter(Boolean)
    .pop() ?? "ssh failed without saying why";

/**
 * One multiplexed ssh connection to a host (ControlMaster), as the user's OpenSSH makes it: their
 * ~/.ssh/config, agent and known hosts, host keys checked (BatchMode: nothing asks a question no one is
 * there to answer). Every command, forward and toolsrv for that host goes through it.
 */
export class SshMaster {
  readonly destination: string;
  readonly controlPath: string;
  private readonly options: readonly string[];
  private readonly ssh: string;
  private master: ResultPromise | undefined;
  private lost: ((reason: string) => void)[] = [];

  constructor(options: SshMasterOptions) {
    this.destination = options.destination;
    this.ssh = options.ssh ?? "ssh";
    // ControlPath must fit a socket address: a short hash of what names the connection.
    const id = createHash("sha256")
      .update(JSON.stringify([options.destination, options.sshOptions ?? []]))
      .digest("hex")
      .slice(0, 16);
    this.controlPath = join(options.controlDir, `ssh-${id}`);
    this.options = [
      ...(options.sshOptions ?? []),
      "-o",
      "BatchMode=yes",
      "-o",
      `ControlPath=${this.controlPath}`,
      // A forward's local socket left by an earlier run is replaced, not a reason to fail.
      "-o",
      "StreamLocalBindUnlink=yes",
    ];
  }

  /** Whether the master connection is up. */
  get connected(): boolean {
    return this.master !== undefined && this.master.exitCode === null;
  }

  /** Calls `listener` with ssh's reason when the master connection ends without stop(). */
  onLost(listener: (reason: string) => void): void {
    this.lost.push(listener);
  }

  /** Connects (once; again after a loss). Fails with ssh's reason: a refused host key, a refused login. */
  async connect(): Promise<void> {
    // Asked, not assumed: a master killed a moment ago may not have been reaped yet.
    if (this.connected && (await this.check())) return;
    const old = this.master;
    this.master = undefined;
    if (old) {
      old.kill("SIGKILL");
      await old;
    }
    await mkdir(join(this.controlPath, ".."), { recursive: true, mode: 0o700 });
    // A master killed outright leaves its socket; ssh would take it for a live one and not multiplex.
    await rm(this.controlPath, { force: true });
    // The master's own session waits for the end of its standard input, a pipe from this process: if the
    // daemon dies, even by SIGKILL, the session ends, and the master with it once its other sessions (each
    // held the same way) have ended.
    const master = execa(
      this.ssh,
      [...this.options, "-M", "-T", "-o", "ControlPersist=no", "--", this.destination, "exec cat >/dev/null"],
      { reject: false, stdin: "pipe", stdout: "ignore", buffer: { stderr: true } },
    );
    this.master = master;
    const ready = (async () => {
      // ssh says nothing when the connection is up: the master is asked until it answers (or ends).
      for (const until = Date.now() + CONNECT_MS; Date.now() < until; ) {
        if (master.exitCode !== null) return false;
        if (await this.check()) return true;
        await new Promise((r) => setTimeout(r, 50));
      }
      master.kill("SIGTERM");
      return false;
    })();
    const first = await Promise.race([ready, master.then(() => false)]);
    if (!first) {
      const result = await master;
      this.master = undefined;
      throw new SshError(this.destination, reasonOf(String(result.stderr ?? "")));
    }
    void master.then((result) => {
      if (this.master !== master) return;
      this.master = undefined;
      const said = String(result.stderr ?? "").trim();
      const reason = said
        ? reasonOf(said)
        : result.signal
          ? `ssh was ended by ${result.signal}`
          : `ssh exited with status ${result.exitCode}`;
      for (const listener of this.lost) listener(reason);
    });
  }

  /** Whether the master connection answers on its control socket. */
  async check(): Promise<boolean> {
    const r = await execa(this.ssh, [...this.options, "-O", "check", "--", this.destination], {
      reject: false,
      stdin: "ignore",
    });
    return r.exitCode === 0;
  }

  /** Runs `command` (one string, for the remote user's shell) through the master connection. */
  run(command: string, options: Options = {}): ResultPromise {
    return execa(
      this.ssh,
      [...this.options, "-o", "ControlMaster=no", "-T", "--", this.destination, command],
      {
        reject: false,
        ...options,
      },
    );
  }

  /** Forwards the local Unix socket `local` to the remote one `remote`, until the master ends. */
  async forward(local: string, remote: string): Promise<void> {
    const spec = `${local}:${remote}`;
    const r = await execa(this.ssh, [...this.options, "-O", "forward", "-L", spec, "--", this.destination], {
      reject: false,
      stdin: "ignore",
    });
    if (r.exitCode !== 0)
      throw new SshError(this.destination, `forwarding ${spec}: ${reasonOf(String(r.stderr))}`);
  }

  /** Closes the master connection (and so every session and forward through it). */
  async stop(): Promise<void> {
    const master = this.master;
    this.master = undefined;
    if (!master) return;
    master.kill("SIGTERM");
    await master;
  }
}
