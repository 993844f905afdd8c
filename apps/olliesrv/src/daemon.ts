import { readFile, rm } from "node:fs/promises";
import { userInfo } from "node:os";
import { join } from "node:path";
import { writeFileAtomic } from "@ollie/config-file";
import { type Logger, openDaemonLog } from "@ollie/log";
import {
  type Address,
  assertAddressFree,
  formatAddress,
  namespaceDir,
  parseAddress,
  serveUntilSignal,
} from "@ollie/ninep";
import { PeerCredentialsReader, unixPeers } from "@ollie/sandbox";
import { type Activity, observeActivity } from "@ollie/telemetry";
import { TelemetrySettingsError } from "@ollie/telemetry/sdk";
import { listenMountSocket } from "./auth/mount-socket.js";
import { type CommandLine, type DaemonOptions, parseCommandLine, USAGE } from "./command-line.js";
import type { DaemonLock } from "./daemon-lock.js";
import { sayDuration } from "./duration.js";
import { IdleExit } from "./idle-exit.js";
import { createOllie, type Ollie } from "./ollie.js";
import { olliePaths } from "./paths.js";
import { isOpen, sayReady, takeAddress } from "./take-address.js";
import { planTelemetry, startPlannedTelemetry, type TelemetryPlan } from "./telemetry/daemon-telemetry.js";

/**
 * `olliesrv`: the session daemon. Boot, in order: paths, configuration, toolsrv, the namespace (the model
 * lists fetched in the background from then on), the listener, the saved sessions (so restored agents come
 * up on a live tree), then the `--tcp` listener, so a remote client never sees a half-restored daemon.
 * SIGINT or SIGTERM stops every turn, saves every session, closes the listener (removing the socket) and
 * stops toolsrv.
 */
export async function main(argv: string[], env: NodeJS.ProcessEnv = process.env): Promise<number> {
  let command: CommandLine;
  try {
    command = parseCommandLine(argv, env);
  } catch (error) {
    process.stderr.write(`olliesrv: ${(error as Error).message}\n${USAGE}`);
    return 2;
  }
  if (command.kind === "help") {
    process.stdout.write(USAGE);
    return 0;
  }
  if (command.kind === "version") {
    process.stdout.write(`${__PACKAGE_VERSION__}\n`);
    return 0;
  }
  // A log file named by --log-level or $OLLIE_LOG is opened here (and again on SIGHUP, for logrotate).
  const log = openDaemonLog({ program: "olliesrv", settings: command.options.log });
  let telemetry: TelemetryPlan;
  try {
    telemetry = await planTelemetry(env, olliePaths(env).config, log);
  } catch (error) {
    log.error((error as Error).message);
    return error instanceof TelemetrySettingsError ? 2 : 1;
  }
  try {
    return await serve(command.options, env, log, telemetry);
  } catch (error) {
    log.error((error as Error).message);
    return 1;
  }
}

/** Serves until SIGINT or SIGTERM; 1 when it cannot start, or some session could not be saved at the end. */
async function serve(
  options: DaemonOptions,
  env: NodeJS.ProcessEnv,
  log: Logger,
  telemetry: TelemetryPlan,
): Promise<number> {
  const address = options.address ?? `unix!${join(namespaceDir(env), "ollie")}`;
  // A second daemon fails here, before it starts a toolsrv or touches any session, saying who serves.
  const parsedAddress = parseAddress(address);
  const pidFile = parsedAddress.kind === "unix" ? `${parsedAddress.path}.pid` : undefined;
  if (options.readyFd !== undefined && !isOpen(options.readyFd)) {
    log.error(`--ready-fd ${options.readyFd}: no such open descriptor`);
    return 1;
  }
  const lock =
    parsedAddress.kind === "unix" ? await takeAddress(parsedAddress.path, options.readyFd, log) : undefined;
  if (typeof lock === "number") return lock;
  try {
    return await serveExporting(options, { address, parsedAddress, pidFile, lock }, env, log, telemetry);
  } finally {
    // Held until everything has stopped and the socket is gone: only then may the next daemon start.
    lock?.release();
  }
}

interface Where {
  address: string;
  parsedAddress: Address;
  pidFile: string | undefined;
  lock: DaemonLock | undefined;
}

/** Sessions open and agents by the state they show, for the activity metrics. */
function activityOf(ollie: Ollie): Activity {
  const agentsByState = new Map<string, number>();
  const sessions = ollie.sessions.list();
  for (const session of sessions) {
    for (const slot of session.agents.values()) {
      const state = slot.shown.state.get();
      agentsByState.set(state, (agentsByState.get(state) ?? 0) + 1);
    }
  }
  return { sessions: sessions.length, agentsByState };
}

/**
 * Serves with telemetry exported as planned, once the address is known to be free (a second daemon exports
 * nothing); the exporters stop last, within a second, so a stop never waits on a collector.
 */
async function serveExporting(
  options: DaemonOptions,
  where: Where,
  env: NodeJS.ProcessEnv,
  log: Logger,
  plan: TelemetryPlan,
): Promise<number> {
  try {
    await assertAddressFree(where.parsedAddress);
  } catch (error) {
    const pid = where.pidFile && (await readFile(where.pidFile, "utf8").catch(() => "")).trim();
    log.error(`${(error as Error).message}${pid ? ` (olliesrv pid ${pid})` : ""}`);
    return 1;
  }
  // Spans may hold a tool's output (when contents are captured): agents' secrets are taken out too, once known.
  let agentKeys = (text: string) => text;
  const telemetry = await startPlannedTelemetry(plan, log, (text) => agentKeys(log.redact(text)));
  try {
    const ollie = await createOllie({
      options,
      address: where.address,
      env,
      log,
      telemetryEnv: plan.toolsrvEnv,
    });
    agentKeys = (text) => ollie.principals.redactAgentKeys(text);
    const stopObserving = observeActivity("olliesrv", () => activityOf(ollie));
    try {
      return await serveLocked(ollie, options, where, log);
    } finally {
      stopObserving();
    }
  } finally {
    // Last: what is still waiting is exported, for a second at most. An export then still under way (a
    // collector that took the connection and never answers) would hold the process until the exporter's own
    // timeout: once the exit status is set, olliesrv goes without it.
    if (telemetry) {
      await telemetry.shutdown();
      setTimeout(() => process.exit(), EXIT_GRACE_MS).unref();
    }
  }
}

/** How long olliesrv may stay after serving ends, while an export it gave up on is still under way. */
const EXIT_GRACE_MS = 250;

async function serveLocked(
  ollie: Ollie,
  options: DaemonOptions,
  { parsedAddress, pidFile, lock }: Where,
  log: Logger,
): Promise<number> {
  const { server, principals, trail, keyFile } = ollie;
  const sessionsLog = log.child("sessions");
  // Who connected to a Unix socket, asked of the kernel for many connections at once (see unixPeers).
  const credentials = new PeerCredentialsReader();
  const uid = userInfo().uid;
  let restoring: Promise<void> = Promise.resolve();
  // The TCP listener comes up once the sessions are restored (a failure to listen stops the daemon, status 1).
  let stopping = false;
  let listenFailed = false;
  const giveUp = new AbortController();
  const idleStop = new AbortController();
  const idle =
    options.idleExitMs > 0
      ? new IdleExit({
          afterMs: options.idleExitMs,
          busy: () => {
            const served = server.stats();
            return served.connections + served.identifying > 0 || ollie.making.liveAgents.count > 0;
          },
          stop: () => {
            log.info(
              `no client and no live agent for ${sayDuration(options.idleExitMs)}: stopping (--idle-exit)`,
            );
            idleStop.abort();
          },
        })
      : undefined;
  if (idle)
    ollie.making.liveAgents.listen(() => {
      sessionsLog.debug(`live agents: ${ollie.making.liveAgents.count}`);
      idle.changed();
    });
  const mountSocket =
    options.mountSocket ?? (parsedAddress.kind === "unix" ? `${parsedAddress.path}.mount` : false);
  // Up before the sessions are restored, like the main socket; a failure to listen stops the daemon.
  const listenMount = async (path: string): Promise<void> => {
    try {
      await listenMountSocket(server, path, {
        owner: principals.owner,
        uid,
        audit: (line) => trail.record(line, "mount"),
        credentials,
      });
      log.debug(
        `serving the owner's mount socket on ${path}: mount -t 9p -o trans=unix,version=9p2000.L,access=${uid} ${path} DIR`,
      );
    } catch (error) {
      listenFailed = true;
      log.error(`cannot serve the mount socket on ${path}: ${(error as Error).message}; stopping`);
      giveUp.abort();
    }
  };
  const listenTcp = async (tcp: string) => {
    if (stopping) return;
    try {
      const listener = await server.listen(tcp, { maxConnections: options.maxTcpConnections });
      const bound = formatAddress(listener.boundAddress);
      log.info(`serving on ${bound} (authenticated, like every listener)`);
      if (options.printAddress) process.stdout.write(`${bound}\n`);
    } catch (error) {
      listenFailed = true;
      log.error(`cannot listen on ${tcp}: ${(error as Error).message}; stopping`);
      giveUp.abort();
    }
  };
  let unsaved = 0;
  try {
    await serveUntilSignal(
      server,
      parsedAddress,
      (listener) => {
        const bound = formatAddress(listener.boundAddress);
        const { config } = ollie;
        // The one line of a normal start; the hints are for a first run (no backends.conf yet) or debug.
        log.info(
          `serving on ${bound} (toolsrv at ${ollie.toolsrvAddress}); default backend: ${config.backends.conf.defaultProfile ?? "none"}`,
        );
        const own = config.backends.conf.file === config.userFile;
        (own ? log.debug : log.info)(
          `try: ollie -a '${bound}' ask "hello"   (backends are configured in ${ollie.making.backendsConf}${own ? "" : ", which does not exist yet: 'ollie init PROVIDER' writes it"})`,
        );
        log.debug(`you attach as ${principals.owner}, proven with ${keyFile} (ninep: -k ${keyFile})`);
        if (idle) {
          // A client's coming and going is seen at once; the idle time counts from its last. The server
          // counts a socket from its own "connection" listener, which ran before this one; it forgets it in
          // a "close" listener added later than this one, so this looks once that has run.
          listener.server.on("connection", (socket) => {
            idle.changed();
            socket.once("close", () => queueMicrotask(() => idle.changed()));
          });
        }
        if (pidFile) void writeFileAtomic(pidFile, `${process.pid}\n`).catch(() => {});
        const started = performance.now();
        const mounting = mountSocket ? listenMount(mountSocket) : Promise.resolve();
        restoring = mounting
          .then(() => (listenFailed ? 0 : ollie.restore()))
          .then(
            (n) => {
              const ms = (performance.now() - started).toFixed(0);
              sessionsLog.debug(
                `restored ${n} session${n === 1 ? "" : "s"} from ${ollie.paths.sessions} in ${ms} ms`,
              );
            },
            (e: unknown) => {
              log.error(`restoring sessions failed: ${(e as Error).message}`);
            },
          );
        // Ready is said once the sessions are back: a client that comes now finds them.
        restoring = restoring.then(() => {
          if (stopping) return;
          if (options.printAddress) process.stdout.write(`${bound}\n`);
          if (options.readyFd !== undefined) sayReady(options.readyFd, bound);
          lock?.set("ready");
          idle?.start();
        });
        if (options.tcp !== undefined) restoring = restoring.then(() => listenTcp(options.tcp!));
      },
      {
        stop: AbortSignal.any([giveUp.signal, idleStop.signal]),
        // On a Unix socket the kernel names each peer's user: the owner always gets in. On TCP a peer is its
        // address, and the listener has a limit of its own.
        ...(parsedAddress.kind === "unix"
          ? {
              peer: unixPeers(credentials, uid, (error) =>
                trail.record(`${error.message}; counted as unidentified, not as the owner`, "unidentified"),
              ),
            }
          : { maxConnections: options.maxTcpConnections }),
      },
    );
  } finally {
    stopping = true;
    idle?.close();
    lock?.set("stopping");
    // Never in the way of the shutdown that follows (toolsrv must be stopped whatever happened).
    if (pidFile) await rm(pidFile, { force: true }).catch(() => {});
    await restoring;
    unsaved = await ollie.close();
  }
  // What could not be saved was logged, session by session; the exit status says that something was lost.
  return unsaved > 0 || listenFailed ? 1 : 0;
}
