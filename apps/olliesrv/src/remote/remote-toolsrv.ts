import type { Logger } from "@ollie/log";
import { eachLine } from "../each-line.js";
import { configBundle } from "./config-bundle.js";
import { BUNDLES, provision, remoteDir } from "./provision.js";
import { shellQuote } from "./remote-target.js";
import { type RuntimeBundle, runtimeBundle } from "./runtime-bundle.js";
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
  /** Where bundles are staged and packed here. */
  cacheDir: string;
  /**
   * The configuration directory whose tools and sandbox policies the host's toolsrv runs with (never the
   * host's own, which no tool there may reach).
   */
  configDir: string;
  /**
   * Paths no tool there may reach, on top of the host's own Ollie files and toolsrv's bundles there (see
   * `launch`): the daemon passes what its local toolsrv protects, so a host that is this machine, or shares
   * its home, guards the same files.
   */
  protect?: readonly string[];
  log: Logger;
  /** Called when toolsrv there ends after it served, unless stop() ended it. */
  onExit?: (reason: string) => void;
}

/** What a start did: how many bundles it sent (none: the host had them from an earlier start). */
export interface RemoteStart {
  address: string;
  sent: number;
  /** The socket toolsrv listens on, on the host. */
  remoteSocket: string;
}

const DEFAULT_DATA_DIR = ".cache/ollie/remote";

let runtime: Promise<RuntimeBundle> | undefined;

/** toolsrv's bundle, hashed once per daemon: the installed packages do not change under it. */
function runtimeBundleOnce(): Promise<RuntimeBundle> {
  runtime ??= runtimeBundle().catch((error: unknown) => {
    runtime = undefined;
    throw error;
  });
  return runtime;
}

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
    const runtime = await runtimeBundleOnce();
    const config = await configBundle(this.options.configDir);
    const dataDir = this.options.dataDir ?? DEFAULT_DATA_DIR;
    const node = this.options.node ?? "node";
    const sent = await provision(master, [runtime, config], dataDir, node, this.options.cacheDir);
    const remoteSocket = await this.launch(runtime.hash, config.hash, dataDir, node);
    await master.forward(this.options.localSocket, remoteSocket);
    log.info(`toolsrv on ${master.destination} at ${remoteSocket}, forwarded to ${this.options.localSocket}`);
    return { address: this.address, sent, remoteSocket };
  }

  /**
   * Starts toolsrv on the host; resolves with the socket it serves on there. Its tools may not write the
   * bundles (toolsrv's code, the tools, the user's policies: `--protect-writes`), and may not reach at all
   * (`--protect`) the sockets in the data directory, the host's own Ollie configuration and data
   * (`$XDG_CONFIG_HOME/ollie`, `$XDG_DATA_HOME/ollie`: a backends.conf with keys, an owner key) or the
   * daemon's `protect` list. The memory directory beside the bundles is theirs.
   */
  private async launch(runtime: string, config: string, dataDir: string, node: string): Promise<string> {
    const { master, log, key } = this.options;
    const bin = `"$d"/${BUNDLES}/${runtime}/node_modules/toolsrv/bin/toolsrv.js`;
    const unreachable = [
      ...(this.options.protect ?? []).map(shellQuote),
      '"$d"/run',
      '"$host_config"',
      '"$host_data"',
    ];
    // The bundles are read and run (the tools are there), never written.
    const protect = [...unreachable.flatMap((p) => ["--protect", p]), "--protect-writes", `"$d"/${BUNDLES}`];
    // The user's tools and policies are the configuration; memory outlives any one version of it.
    const env = `XDG_CONFIG_HOME="$d"/${BUNDLES}/${config} OLLIE_MEMORY_PATH="$d"/memory `;
    const script = [
      `d=${remoteDir(dataDir)}`,
      `host_config="\${XDG_CONFIG_HOME:-$HOME/.config}"/ollie`,
      `host_data="\${XDG_DATA_HOME:-$HOME/.local/share}"/ollie`,
      `mkdir -p "$d"/run && ${env}exec ${shellQuote(node)} ${bin} -a "unix!$d/run/toolsrv-$$.sock" ` +
        `--key-stdin --require-sandbox --print-address ${protect.join(" ")}`,
    ].join("; ");
    const child = master.run(script, { stdin: "pipe", buffer: false });
    this.child = child;
    child.stdin!.write(`${key}\n`);
    let lastLine = "";
    eachLine(child.stderr, (line) => {
      log.relay(line);
      if (line) lastLine = line.replace(/^\S+Z (ERROR|WARN|INFO) +/, "");
    });
    return new Promise((resolve, reject) => {
      let serving = false;
      eachLine(child.stdout, (line) => {
        if (serving) return;
        serving = true;
        resolve(line.replace(/^unix!/, ""));
      });
      void child.then((r) => {
        const ended = `toolsrv exited (status ${r.exitCode})${lastLine ? `: ${lastLine}` : ""}`;
        if (!serving) reject(new SshError(master.destination, ended.replace(")", ") before it served")));
        else if (this.child === child) {
          this.child = undefined;
          this.options.onExit?.(ended);
        }
      });
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
