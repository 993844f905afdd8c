import { createHash } from "node:crypto";
import { join } from "node:path";
import type { Logger } from "@ollie/log";
import { type Authenticator, hmacAuthenticator } from "@ollie/ninep";
import { type AddressDial, ToolsrvLostError, type ToolsrvRoute } from "../toolsrv/redialing-tools.js";
import { agentTmpDir } from "./agent-tmp.js";
import type { HostSettings } from "./remote-config.js";
import { RemoteToolsrv } from "./remote-toolsrv.js";
import { SshError, SshMaster } from "./ssh-master.js";

export interface RemoteHostsOptions {
  /** The daemon's runtime directory: control sockets and the local ends of forwards go here. */
  runtimeDir: string;
  /** Where the toolsrv bundle is staged. */
  cacheDir: string;
  /** The configuration directory whose tools and sandbox policies remote toolsrvs run with. */
  configDir: string;
  /** The key remote toolsrvs make every attach prove (the local toolsrv's). */
  key: string;
  /** Paths no tool on any host may reach (what the local toolsrv protects: see RemoteToolsrvOptions). */
  protect?: readonly string[];
  settings(destination: string): Promise<HostSettings>;
  log: Logger;
  /** The clock the reconnection backoff reads (milliseconds). */
  now?: () => number;
}

/** The first wait after a failed start, doubled at each failure up to the last. */
const BACKOFF_MS = { first: 2000, most: 60_000 };

/** What `ollie status` says of a host. */
export type HostState = "connecting" | "connected" | "disconnected";

interface Host {
  master: SshMaster;
  toolsrv: RemoteToolsrv;
  /** The start under way or done; undefined after the connection was lost, so the next use starts again. */
  started: Promise<string> | undefined;
  state: HostState;
  /** Why the connection was lost, when it was. */
  lost?: string;
  /** Starts that failed in a row, and when the next may be tried. */
  failures: number;
  retryAt: number;
}

/**
 * The hosts sessions run tools on: one ssh master connection and one toolsrv per host, shared by every
 * session there, started at first use and again at the first use after the connection was lost.
 */
export class RemoteHosts {
  private readonly hosts = new Map<string, Host>();
  /** Hosts whose settings are being read, so two first uses at once make one host. */
  private readonly adding = new Map<string, Promise<Host>>();

  /** How olliesrv proves itself to every remote toolsrv (they require the key they were started with). */
  readonly authenticator: Authenticator;

  constructor(private readonly options: RemoteHostsOptions) {
    this.authenticator = hmacAuthenticator(options.key);
  }

  /** toolsrv's local address for `destination`, connecting and starting it when it is not running. */
  async address(destination: string): Promise<string> {
    let host = this.hosts.get(destination);
    if (!host) {
      const adding = this.adding.get(destination) ?? this.add(destination);
      this.adding.set(destination, adding);
      host = await adding.finally(() => this.adding.delete(destination));
    }
    // A master that has just ended may not have said so yet: its toolsrv is gone all the same.
    if (host.state === "connected" && !(await host.master.check())) {
      host.state = "disconnected";
      host.started = undefined;
    }
    if (!host.started) host.started = this.start(destination, host);
    return host.started;
  }

  /**
   * Starts toolsrv on the host, unless a start failed a moment ago: after a failure a new one waits 2 s,
   * then twice as long after each further failure, a minute at most, and a use within the wait fails at
   * once, saying why and for how long.
   */
  private start(destination: string, host: Host): Promise<string> {
    const now = this.options.now?.() ?? Date.now();
    if (now < host.retryAt) {
      const wait = Math.ceil((host.retryAt - now) / 1000);
      return Promise.reject(
        new SshError(
          destination,
          `not connecting again for ${wait} s: the last attempt failed: ${host.lost}`,
        ),
      );
    }
    host.state = "connecting";
    return host.toolsrv.start().then(
      (started) => {
        Object.assign(host, { state: "connected", lost: undefined, failures: 0, retryAt: 0 });
        return started.address;
      },
      (error: unknown) => {
        const wait = Math.min(BACKOFF_MS.first * 2 ** host.failures, BACKOFF_MS.most);
        host.failures++;
        host.retryAt = (this.options.now?.() ?? Date.now()) + wait;
        const lost = error instanceof SshError ? error.reason : (error as Error).message;
        Object.assign(host, { state: "disconnected", started: undefined, lost });
        throw error;
      },
    );
  }

  /**
   * The route to `destination`'s toolsrv for an agent (see RedialingTools): a dial starts it there when it is
   * not running; a loss of the host's toolsrv or of the connection to the host makes the next use dial again,
   * and ends a call it cut off saying so.
   */
  route(destination: string, dial: AddressDial): ToolsrvRoute {
    return {
      dial: async (loaded) => dial(await this.address(destination), loaded),
      lostReason: () => this.state(destination).lost,
      lostCall: async (error) => {
        const reason = this.state(destination).lost ?? error.message;
        return new ToolsrvLostError(
          `toolsrv on ${destination}`,
          reason,
          `connection to ${destination} lost (${reason}); the call did not finish there, and the next call reconnects`,
        );
      },
    };
  }

  /**
   * The private TMPDIR of the agent `uname` on `destination` (see agentTmpDir), made there if need be
   * through the host's connection, which address() started.
   */
  async agentTmpDir(destination: string, uname: string): Promise<string> {
    const host = this.hosts.get(destination);
    if (!host) throw new SshError(destination, "not connected: no toolsrv was started there");
    return agentTmpDir(host.master, uname);
  }

  /** Whether `destination` is connected, and why not when it was lost. */
  state(destination: string): { state: HostState; lost?: string } {
    const host = this.hosts.get(destination);
    if (!host) return { state: "disconnected" };
    return { state: host.state, ...(host.lost && { lost: host.lost }) };
  }

  private async add(destination: string): Promise<Host> {
    const settings = await this.options.settings(destination);
    const id = createHash("sha256").update(destination).digest("hex").slice(0, 12);
    const master = new SshMaster({
      destination,
      controlDir: this.options.runtimeDir,
      sshOptions: settings.sshOptions,
    });
    const log = this.options.log.child("remote");
    const toolsrv = new RemoteToolsrv({
      master,
      localSocket: join(this.options.runtimeDir, `toolsrv-${id}.sock`),
      key: this.options.key,
      cacheDir: this.options.cacheDir,
      configDir: this.options.configDir,
      ...(this.options.protect && { protect: this.options.protect }),
      log,
      ...(settings.node !== undefined && { node: settings.node }),
      ...(settings.dataDir !== undefined && { dataDir: settings.dataDir }),
      // toolsrv ended there with the connection still up: the next use starts it again.
      onExit: (reason) => {
        if (!master.connected) return;
        log.warn(`toolsrv on ${destination} ended: ${reason}`);
        lost(reason);
      },
    });
    const host: Host = {
      master,
      toolsrv,
      started: undefined,
      state: "disconnected",
      failures: 0,
      retryAt: 0,
    };
    function lost(reason: string) {
      host.state = "disconnected";
      host.lost = reason;
      host.started = undefined;
    }
    master.onLost((reason) => {
      log.warn(`connection to ${destination} lost: ${reason}`);
      lost(reason);
    });
    this.hosts.set(destination, host);
    return host;
  }

  /** Stops every remote toolsrv and closes every connection. */
  async close(): Promise<void> {
    await Promise.all(
      [...this.hosts.values()].map(async (host) => {
        await host.toolsrv.stop().catch(() => {});
        await host.master.stop();
      }),
    );
    this.hosts.clear();
  }
}
