import { createHash } from "node:crypto";
import { join } from "node:path";
import type { Logger } from "@ollie/log";
import { type Authenticator, hmacAuthenticator } from "@ollie/ninep";
import type { HostSettings } from "./remote-config.js";
import { RemoteToolsrv } from "./remote-toolsrv.js";
import { SshMaster } from "./ssh-master.js";

export interface RemoteHostsOptions {
  /** The daemon's runtime directory: control sockets and the local ends of forwards go here. */
  runtimeDir: string;
  /** Where the toolsrv bundle is staged. */
  cacheDir: string;
  /** The configuration directory whose tools and sandbox policies remote toolsrvs run with. */
  configDir: string;
  /** The key remote toolsrvs make every attach prove (the local toolsrv's). */
  key: string;
  settings(destination: string): Promise<HostSettings>;
  log: Logger;
}

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
    if (!host.started) {
      host.state = "connecting";
      host.started = host.toolsrv.start().then(
        (started) => {
          host.state = "connected";
          host.lost = undefined;
          return started.address;
        },
        (error: unknown) => {
          host.state = "disconnected";
          host.started = undefined;
          throw error;
        },
      );
    }
    return host.started;
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
      log,
      ...(settings.node !== undefined && { node: settings.node }),
      ...(settings.dataDir !== undefined && { dataDir: settings.dataDir }),
    });
    const host: Host = { master, toolsrv, started: undefined, state: "disconnected" };
    master.onLost((reason) => {
      log.warn(`connection to ${destination} lost: ${reason}`);
      host.state = "disconnected";
      host.lost = reason;
      host.started = undefined;
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
