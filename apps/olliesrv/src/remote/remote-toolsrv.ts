import { existsSync } from "node:fs";
import type { Logger } from "@ollie/log";
import { execa } from "execa";
import { shellQuote } from "./remote-target.js";
import { type RuntimeBundle, runtimeBundle, stageBundle } from "./runtime-bundle.js";
import { SshError, type SshMaster } from "./ssh-master.js";

/** How a host runs toolsrv: settings the olliesrv configuration may give per host. */
export interface RemoteHostSettings {
  /** Node on the host (default: `node` from the remote shell's PATH); it must be 20 or later. */
  node?: string;
  /** Where bundles and sockets go on the host; relative to the remote home (default `.cache/ollie/remote`). */
  dataDir?: string;
}

export interface RemoteToolsrvOptions extends RemoteHostSettings {
  master: SshMaster;
  /** The local end of the forward: a Unix socket path in the daemon's runtime directory. */
  localSocket: string;
  /** The key every attach must prove; sent on toolsrv's standard input, never on a command line. */
  key: string;
  /** Where the bundle is staged and packed here. */
  cacheDir: string;
  log: Logger;
  /** The bundle (default: toolsrv as installed beside olliesrv). */
  bundle?: () => Promise<RuntimeBundle>;
}

/** What a start did: whether the bundle had to be sent (false: the host had it from an earlier start). */
export interface RemoteStart {
  address: string;
  sent: boolean;
  /** The socket toolsrv listens on, on the host. */
  remoteSocket: string;
}

const DEFAULT_DATA_DIR = ".cache/ollie/remote";

/** The data directory as an absolute path in the remote shell: `$HOME/…` unless it starts with '/'. */
const remoteDir = (dir: string) => (dir.startsWith("/") ? shellQuote(dir) : `"$HOME"/${shellQuote(dir)}`);

/**
 * toolsrv on another machine, reached through an ssh master connection: the bundle of toolsrv and what it
 * needs is sent once per content (a directory named by its hash; a second start, or a second session,
 * finds it there), toolsrv is started over the connection with `--key-stdin` (so it dies with the
 * connection and the key never touches a command line or a file), and its socket is forwarded to
 * `localSocket`, where a ToolsrvConn dials it as it would a local toolsrv.
 */
export class RemoteToolsrv {
  private child: ReturnType<SshMaster["run"]> | undefined;

  constructor(private readonly options: RemoteToolsrvOptions) {}

  get address(): string {
    return `unix!${this.options.localSocket}`;
  }

  /** Connects, provisions and starts toolsrv there; resolves when the forwarded socket answers. */
  async start(): Promise<RemoteStart> {
    const { master, log } = this.options;
    await master.connect();
    const bundle = await (this.options.bundle ?? runtimeBundle)();
    const dataDir = this.options.dataDir ?? DEFAULT_DATA_DIR;
    const node = this.options.node ?? "node";
    const sent = await this.provision(bundle, dataDir, node);
    const remoteSocket = await this.launch(bundle.hash, dataDir, node);
    await master.forward(this.options.localSocket, remoteSocket);
    log.info(`toolsrv on ${master.destination} at ${remoteSocket}, forwarded to ${this.options.localSocket}`);
    return { address: this.address, sent, remoteSocket };
  }

  /** Checks Node on the host and sends the bundle unless the host has it. Returns whether it was sent. */
  private async provision(bundle: RuntimeBundle, dataDir: string, node: string): Promise<boolean> {
    const { master } = this.options;
    const dir = `${remoteDir(dataDir)}/${bundle.hash}`;
    const probe = await master.run(
      `${shellQuote(node)} -e 'process.stdout.write(process.versions.node)' && echo && { test -f ${dir}/bundle.json && echo present || echo absent; }`,
      { stdin: "ignore" },
    );
    const [version, presence] = String(probe.stdout).trim().split("\n");
    if (probe.exitCode !== 0 || !version) {
      throw new SshError(
        master.destination,
        `no Node.js '${node}' there: ${String(probe.stderr).trim() || "it did not run"}`,
      );
    }
    if (Number(version.split(".")[0]) < 20) {
      throw new SshError(
        master.destination,
        `toolsrv needs Node.js 20 or later there; '${node}' is ${version}`,
      );
    }
    if (presence === "present") return false;
    const tarball = await this.pack(bundle);
    // Unpacked beside its final place and renamed into it: a host never has half a bundle under its hash.
    const unpack = await master.run(
      `set -e; mkdir -p ${remoteDir(dataDir)}; t=$(mktemp -d ${remoteDir(dataDir)}/.incoming.XXXXXX); ` +
        `tar -xzf - -C "$t"; mv "$t" ${dir} 2>/dev/null || rm -rf "$t"; test -f ${dir}/bundle.json`,
      { inputFile: tarball },
    );
    if (unpack.exitCode !== 0) {
      throw new SshError(master.destination, `sending toolsrv failed: ${String(unpack.stderr).trim()}`);
    }
    return true;
  }

  /** The bundle as one gzipped tar, made once per hash. */
  private async pack(bundle: RuntimeBundle): Promise<string> {
    const staged = await stageBundle(bundle, this.options.cacheDir);
    const tarball = `${staged}.tar.gz`;
    if (!existsSync(tarball)) {
      const temp = `${tarball}.${process.pid}.tmp`;
      await execa("tar", ["-czf", temp, "-C", staged, "."]);
      await execa("mv", [temp, tarball]);
    }
    return tarball;
  }

  /** Starts toolsrv on the host; resolves with the socket it serves on there. */
  private async launch(hash: string, dataDir: string, node: string): Promise<string> {
    const { master, log, key } = this.options;
    const bin = `${remoteDir(dataDir)}/${hash}/node_modules/toolsrv/bin/toolsrv.js`;
    const socket = `${remoteDir(dataDir)}/run/toolsrv-$$.sock`;
    const child = master.run(
      `mkdir -p ${remoteDir(dataDir)}/run && exec ${shellQuote(node)} ${bin} -a "unix!"${socket} --key-stdin --print-address`,
      { stdin: "pipe", buffer: false },
    );
    this.child = child;
    child.stdin!.write(`${key}\n`);
    let stderr = "";
    child.stderr!.setEncoding("utf8");
    child.stderr!.on("data", (chunk: string) => {
      stderr += chunk;
      const lines = stderr.split("\n");
      stderr = lines.pop()!;
      for (const line of lines) log.relay(line);
    });
    return new Promise((resolve, reject) => {
      child.stdout!.setEncoding("utf8");
      let out = "";
      child.stdout!.on("data", (chunk: string) => {
        out += chunk;
        const end = out.indexOf("\n");
        if (end >= 0) resolve(out.slice(0, end).replace(/^unix!/, ""));
      });
      void child.then((r) =>
        reject(
          new SshError(
            master.destination,
            `toolsrv exited (status ${r.exitCode}) before it served${stderr ? `: ${stderr}` : ""}`,
          ),
        ),
      );
    });
  }

  /** Stops toolsrv there (its standard input closes, so it stops as it does when the connection drops). */
  async stop(): Promise<void> {
    const child = this.child;
    this.child = undefined;
    if (!child) return;
    child.stdin?.end();
    await child;
  }
}
