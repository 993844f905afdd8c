import { readFile, rm } from "node:fs/promises";
import { homedir, tmpdir, userInfo } from "node:os";
import { join } from "node:path";
import { writeFileAtomic } from "@ollie/agent-core";
import { type Logger, openDaemonLog, RateLimitedLines } from "@ollie/log";
import {
  assertAddressFree,
  defaultUname,
  formatAddress,
  hmacAuthenticator,
  NinepServer,
  parseAddress,
  serveUntilSignal,
} from "@ollie/ninep";
import { PeerCredentialsReader, unixPeers } from "@ollie/sandbox";
import { auditSource } from "./auth/audit-trail.js";
import { connectionErrors } from "./auth/connection-errors.js";
import { listenMountSocket } from "./auth/mount-socket.js";
import { loadOwnerKey } from "./auth/owner-key.js";
import { Principals } from "./auth/principals.js";
import { startBypass } from "./bypass/start-bypass.js";
import { type CommandLine, type DaemonOptions, parseCommandLine, USAGE } from "./command-line.js";
import { LiveConfig } from "./config/live-config.js";
import { LiveSkills } from "./config/live-skills.js";
import { ModelCache } from "./config/model-cache.js";
import { ollieTree } from "./namespace/tree.js";
import { ensureDirs, olliePaths, trustedConfig } from "./paths.js";
import { hostSettings } from "./remote/remote-config.js";
import { RemoteHosts } from "./remote/remote-hosts.js";
import { daemonPromptSandbox } from "./session/sandboxed-prompts.js";
import { Sessions } from "./session/sessions.js";
import type { AgentMaking, SessionEnvironment, SessionPolicy } from "./session/slot-context.js";
import { givenRoute, supervisedRoute } from "./toolsrv/local-routes.js";
import { startToolsrv } from "./toolsrv/toolsrv-process.js";
import { ToolsrvSupervisor } from "./toolsrv/toolsrv-supervisor.js";

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
  try {
    return await serve(command.options, env, log);
  } catch (error) {
    log.error((error as Error).message);
    return 1;
  }
}

/** Serves until SIGINT or SIGTERM; 1 when it cannot start, or some session could not be saved at the end. */
async function serve(options: DaemonOptions, env: NodeJS.ProcessEnv, log: Logger): Promise<number> {
  // The secrets are learnt one by one as they are read; each is hidden from the log from then on.
  if (env.OLLIE_TOOLSRV_KEY) log.addSecret(env.OLLIE_TOOLSRV_KEY);
  const paths = olliePaths(env);
  await ensureDirs(paths);
  const address = options.address ?? `unix!${join(paths.namespace, "ollie")}`;
  // A second daemon fails here, before it starts a toolsrv or touches any session, saying who serves.
  const parsedAddress = parseAddress(address);
  const pidFile = parsedAddress.kind === "unix" ? `${parsedAddress.path}.pid` : undefined;
  try {
    await assertAddressFree(parsedAddress);
  } catch (error) {
    const pid = pidFile && (await readFile(pidFile, "utf8").catch(() => "")).trim();
    log.error(`${(error as Error).message}${pid ? ` (olliesrv pid ${pid})` : ""}`);
    return 1;
  }
  const keyFile = options.keyFile ?? paths.ownerKey;
  let ownerKey: string;
  try {
    ownerKey = await loadOwnerKey(keyFile);
  } catch (error) {
    log.error((error as Error).message);
    return 1;
  }
  log.addSecret(ownerKey);
  const trail = new RateLimitedLines(log.child("audit").warn);
  const principals = new Principals(defaultUname(), ownerKey, (line, source) =>
    trail.record(line, auditSource(source)),
  );
  log.addSecret(principals.toolsrvKey);
  // backends.conf and the agent profiles, read again when they change (their secrets join the log's).
  let config: LiveConfig;
  try {
    config = await LiveConfig.load(paths, log, env);
  } catch (error) {
    log.error(`${(error as Error).message}; fix it and start again`);
    return 1;
  }
  // The skills, read again when the user's skills directory changes, as the profiles are.
  const skills = await LiveSkills.load([join(paths.config, "skills"), join(paths.defaults, "skills")], log);

  // Where the toolsrv bundles for remote hosts are staged: what runs there outside the sandbox.
  const remoteCache = join(env.XDG_CACHE_HOME || join(env.HOME || homedir(), ".cache"), "ollie", "remote");
  // What no tool may reach, here or on a remote host (the same paths, for a host that is this machine or
  // shares its home): what olliesrv runs or trusts — a tool that could write backends.conf or a profile would
  // get out of its sandbox — and the staged bundles. (And the owner key file: see below.)
  const guarded = [...trustedConfig(paths), remoteCache];
  const toolsrvAddress = options.toolsrv ?? `unix!${join(paths.namespace, "toolsrv")}`;
  const toolsrvKey = options.toolsrv ? env.OLLIE_TOOLSRV_KEY : principals.toolsrvKey;
  // The toolsrv olliesrv starts is watched, and started again — the same way — whenever it dies.
  const supervisor = options.toolsrv
    ? undefined
    : await ToolsrvSupervisor.start(toolsrvAddress, {
        start: () =>
          startToolsrv(
            toolsrvAddress,
            { OLLIE_ADDRESS: address, OLLIE_TOOLSRV_KEY: principals.toolsrvKey },
            [
              // toolsrv protects the owner key file from every sandbox as well.
              "--owner-key",
              keyFile,
              ...guarded.flatMap((path) => ["--protect", path]),
              ...(options.logLevel === undefined ? [] : ["--log-level", options.logLevel]),
            ],
            log,
          ),
        log,
      });

  // Every profile's model list, fetched in the background from the start and again when backends.conf changes.
  const models = new ModelCache(() => config.backends, log);
  // The hosts remote sessions run tools on: their toolsrvs prove the same key as the local one.
  const remotes = new RemoteHosts({
    runtimeDir: join(paths.namespace, "ollie-remote"),
    cacheDir: remoteCache,
    key: principals.toolsrvKey,
    // The owner key is never sent to a host: its path is protected there, as a file there may be its copy.
    protect: [...guarded, keyFile],
    configDir: paths.config,
    settings: (destination) => hostSettings(paths.config, destination),
    log,
  });
  const making: AgentMaking = {
    get backends() {
      return config.backends;
    },
    models,
    profiles: config.profiles,
    skills: () => skills.current,
    toolsrv: (dial) => (supervisor ? supervisedRoute(supervisor, dial) : givenRoute(toolsrvAddress, dial)),
    remotes,
    prompt: { ollieDir: paths.config, env: { ...env, OLLIE_DEFAULTS: paths.defaults } },
    promptSandbox: daemonPromptSandbox(paths, keyFile, env),
    snapshotDir: paths.sessions,
    backendsConf: join(paths.config, "backends.conf"),
    tmpRoot: join(tmpdir(), `ollie-${userInfo().uid}`),
    agentKey: (uname) => principals.agentKey(uname),
    ...(toolsrvKey && { toolsrvAuthenticator: hmacAuthenticator(toolsrvKey) }),
    idleCloseMs: options.idleCloseMs,
  };
  const policy: SessionPolicy = {
    owner: principals.owner,
    audit: (line, source = "olliesrv") => trail.record(line, auditSource(source)),
    limits: options.limits,
  };
  const environment: SessionEnvironment = { making, policy };
  const sessionsLog = log.child("sessions");
  const sessions = new Sessions(paths.sessions, paths.corrupt, environment, sessionsLog);
  // toolsrv's bypass broker, followed as the owner: what agents ask to run outside the sandbox.
  const bypass = startBypass({
    sessions,
    owner: principals.owner,
    ownerKey,
    toolsrvAddress,
    toolsrvKey,
    supervisor,
    configDir: paths.config,
    log,
    audit: (line, source) => trail.record(line, auditSource(source)),
  });
  const tree = ollieTree(sessions, {
    owner: principals.owner,
    onDenied: (d) => trail.record(`denied ${d.uname} ${d.access} ${d.path}`, auditSource(d.uname)),
    serverStats: () => server.stats(),
    toolsrv: () => supervisor?.status(),
    extra: [bypass.tree],
    reload: async () => {
      await skills.reload();
      await config.reload();
      models.retryFailed();
    },
  });
  // A live agent takes a changed backends.conf between turns; a paused one when it comes back.
  config.onBackendsChange((old) => {
    models.refresh();
    for (const session of sessions.list()) for (const slot of session.agents.values()) slot.reconfigure(old);
  });
  config.watch();
  // An agent's loaded skills that changed are rendered anew at its next turn; those removed are unloaded.
  skills.onChange((before) => {
    for (const session of sessions.list())
      for (const slot of session.agents.values()) void slot.skillsChanged(before);
  });
  skills.watch();
  sessions.onKill(() => {
    tree.prune("/session");
    tree.prune("/peer");
  });
  const ninepLog = log.child("9p");
  const server: NinepServer = new NinepServer(tree, {
    auth: principals.serverAuth((uname) => sessions.agent(uname) !== undefined),
    limits: options.serverLimits,
    ...(ninepLog.enabled("trace") && { trace: ninepLog.trace }),
    onError: connectionErrors(trail, ninepLog.warn),
  });
  // Who connected to a Unix socket, asked of the kernel for many connections at once (see unixPeers).
  const credentials = new PeerCredentialsReader();
  const uid = userInfo().uid;
  // Prefetched while the listener comes up: reading `models` never waits for a backend it need not.
  models.refresh();
  let restoring: Promise<void> = Promise.resolve();
  let unsaved = 0;
  // The TCP listener comes up once the sessions are restored (a failure to listen stops the daemon, status 1).
  let stopping = false;
  let listenFailed = false;
  const giveUp = new AbortController();
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
      log.info(
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
  try {
    await serveUntilSignal(
      server,
      parseAddress(address),
      (listener) => {
        const bound = formatAddress(listener.boundAddress);
        log.info(
          `serving on ${bound} (toolsrv at ${toolsrvAddress}); default backend: ${config.backends.conf.defaultProfile ?? "none"}`,
        );
        const own = config.backends.conf.file === config.userFile;
        log.info(
          `try: ollie -a '${bound}' ask "hello"   (backends are configured in ${making.backendsConf}${own ? "" : ", which does not exist yet: 'ollie init PROVIDER' writes it"})`,
        );
        log.info(`you attach as ${principals.owner}, proven with ${keyFile} (ninep: -k ${keyFile})`);
        if (pidFile) void writeFileAtomic(pidFile, `${process.pid}\n`).catch(() => {});
        const started = performance.now();
        const mounting = mountSocket ? listenMount(mountSocket) : Promise.resolve();
        restoring = mounting
          .then(() => (listenFailed ? 0 : sessions.restore()))
          .then(
            (n) => {
              const ms = (performance.now() - started).toFixed(0);
              sessionsLog.info(
                `restored ${n} session${n === 1 ? "" : "s"} from ${paths.sessions} in ${ms} ms`,
              );
            },
            (e: unknown) => {
              log.error(`restoring sessions failed: ${(e as Error).message}`);
            },
          );
        // Ready is said once the sessions are back: a client that comes now finds them.
        if (options.printAddress) restoring = restoring.then(() => void process.stdout.write(`${bound}\n`));
        if (options.tcp !== undefined) restoring = restoring.then(() => listenTcp(options.tcp!));
      },
      {
        stop: giveUp.signal,
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
    // A toolsrv that ends from now on (a Ctrl-C reaches it too) is not started again.
    supervisor?.hold();
    // Never in the way of the shutdown that follows (toolsrv must be stopped whatever happened).
    if (pidFile) await rm(pidFile, { force: true }).catch(() => {});
    // A reload under way ends before the sessions close, and tells nobody.
    await config.close();
    await skills.close();
    models.close();
    await restoring;
    unsaved = await sessions.close();
    await server.close();
    await bypass.desk.close();
    await remotes.close();
    await supervisor?.stop();
  }
  // What could not be saved was logged, session by session; the exit status says that something was lost.
  return unsaved > 0 || listenFailed ? 1 : 0;
}
