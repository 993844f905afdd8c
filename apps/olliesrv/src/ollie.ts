import { tmpdir, userInfo } from "node:os";
import { join } from "node:path";
import { type Logger, RateLimitedLines } from "@ollie/log";
import { defaultUname, hmacAuthenticator, NinepServer } from "@ollie/ninep";
import { auditSource } from "./auth/audit-trail.js";
import { connectionErrors } from "./auth/connection-errors.js";
import { loadOwnerKey } from "./auth/owner-key.js";
import { Principals } from "./auth/principals.js";
import { startBypass } from "./bypass/start-bypass.js";
import { CheckpointRepos } from "./checkpoints/checkpoint-repos.js";
import type { DaemonOptions } from "./command-line.js";
import { LiveConfig } from "./config/live-config.js";
import { LiveSkills } from "./config/live-skills.js";
import { ModelCache } from "./config/model-cache.js";
import { DaemonStats } from "./namespace/stats-file.js";
import { ollieTree } from "./namespace/tree.js";
import { ensureDirs, type OlliePaths, olliePaths, trustedConfig } from "./paths.js";
import { hostSettings } from "./remote/remote-config.js";
import { RemoteHosts } from "./remote/remote-hosts.js";
import { LiveAgents } from "./session/live-agents.js";
import { daemonPromptSandbox } from "./session/sandboxed-prompts.js";
import { Sessions } from "./session/sessions.js";
import type { AgentMaking, SessionPolicy } from "./session/slot-context.js";
import { givenRoute, supervisedRoute } from "./toolsrv/local-routes.js";
import { startToolsrv } from "./toolsrv/toolsrv-process.js";
import { ToolsrvSupervisor } from "./toolsrv/toolsrv-supervisor.js";

/** What createOllie needs: the daemon's options, the environment it reads, and where it logs. */
export interface OllieOptions {
  options: DaemonOptions;
  /** The address it serves on (toolsrv's tools reach olliesrv there: `OLLIE_ADDRESS`). */
  address: string;
  env: NodeJS.ProcessEnv;
  log: Logger;
  /** OTEL_* settings the toolsrv olliesrv starts is given (from olliesrv.yaml), so it exports alike. */
  telemetryEnv?: Record<string, string>;
}

/**
 * The daemon's parts, made by createOllie in the order each needs the others, and stopped by `close` in the
 * reverse. Nothing listens yet: `server` serves the namespace once given a listener.
 */
export interface Ollie {
  readonly paths: OlliePaths;
  /** The owner key's file, as the log's start-up hints name it. */
  readonly keyFile: string;
  readonly principals: Principals;
  /** The audit trail: refusals, at most so many lines per source. */
  readonly trail: RateLimitedLines;
  /** backends.conf and the agent profiles, read again when they change. */
  readonly config: LiveConfig;
  /** What agents are made with: the daemon's toolsrv, backends, profiles, skills… */
  readonly making: AgentMaking;
  readonly toolsrvAddress: string;
  /** The toolsrv olliesrv started and restarts; none for one given with `--toolsrv`. */
  readonly supervisor: ToolsrvSupervisor | undefined;
  readonly sessions: Sessions;
  readonly server: NinepServer;
  /** Brings back the saved sessions (once the listener is up, so restored agents come up on a live tree). */
  restore(): Promise<number>;
  /**
   * Stops everything, in order: no toolsrv is started again, the watchers stop, every turn is stopped and
   * every session saved, the connections close, then the remote hosts and toolsrv are left. Returns how
   * many sessions could not be saved (each was logged).
   */
  close(): Promise<number>;
}

/**
 * Makes the daemon: its directories, the owner key and the principals, the configuration and skills
 * (watched), toolsrv (supervised), the model lists, the remote hosts, what agents are made with and the
 * policy enforced on them, the sessions, the bypass desk, the namespace, and the 9P server of it. Throws an
 * Error saying what to fix when the owner key or the configuration cannot be read, before anything starts.
 */
export async function createOllie({
  options,
  address,
  env,
  log,
  telemetryEnv,
}: OllieOptions): Promise<Ollie> {
  // The secrets are learnt one by one as they are read; each is hidden from the log from then on.
  if (env.OLLIE_TOOLSRV_KEY) log.addSecret(env.OLLIE_TOOLSRV_KEY);
  const paths = olliePaths(env);
  await ensureDirs(paths);
  const keyFile = options.keyFile ?? paths.ownerKey;
  const ownerKey = await loadOwnerKey(keyFile);
  log.addSecret(ownerKey);
  const trail = new RateLimitedLines(log.child("audit").warn);
  const audit = (line: string, source = "olliesrv") => trail.record(line, auditSource(source));
  const principals = new Principals(defaultUname(), ownerKey, audit);
  log.addSecret(principals.toolsrvKey);
  // backends.conf and the agent profiles, read again when they change (their secrets join the log's).
  const config = await LiveConfig.load(paths, log, env).catch((error: unknown) => {
    throw new Error(`${(error as Error).message}; fix it and start again`);
  });
  // The skills, read again when the user's skills directory changes, as the profiles are.
  const skills = await LiveSkills.load([join(paths.config, "skills"), join(paths.defaults, "skills")], log);

  // Where the toolsrv bundles for remote hosts are staged: what runs there outside the sandbox.
  const remoteCache = join(paths.cache, "remote");
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
            { ...telemetryEnv, OLLIE_ADDRESS: address, OLLIE_TOOLSRV_KEY: principals.toolsrvKey },
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
    checkpoints: new CheckpointRepos(paths.data),
    backendsConf: join(paths.config, "backends.conf"),
    tmpRoot: join(tmpdir(), `ollie-${userInfo().uid}`),
    agentKey: (uname) => principals.agentKey(uname),
    ...(toolsrvKey && { toolsrvAuthenticator: hmacAuthenticator(toolsrvKey) }),
    idleCloseMs: options.idleCloseMs,
    liveAgents: new LiveAgents(),
  };
  const policy: SessionPolicy = { owner: principals.owner, audit, limits: options.limits };
  const sessionsLog = log.child("sessions");
  const sessions = new Sessions(paths.sessions, paths.corrupt, { making, policy }, sessionsLog);
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
  const stats = new DaemonStats(sessions, () => supervisor?.status());
  const tree = ollieTree(sessions, {
    owner: principals.owner,
    onDenied: (d) => trail.record(`denied ${d.uname} ${d.access} ${d.path}`, auditSource(d.uname)),
    stats,
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
  const server = new NinepServer(tree, {
    auth: principals.serverAuth((uname) => sessions.agent(uname) !== undefined),
    limits: options.serverLimits,
    ...(ninepLog.enabled("trace") && { trace: ninepLog.trace }),
    onError: connectionErrors(trail, ninepLog.warn),
  });
  stats.servedBy(server);
  // Prefetched while the listener comes up: reading `models` never waits for a backend it need not.
  models.refresh();

  let restoring: Promise<number> | undefined;
  return {
    paths,
    keyFile,
    principals,
    trail,
    config,
    making,
    toolsrvAddress,
    supervisor,
    sessions,
    server,
    restore() {
      restoring = sessions.restore();
      return restoring;
    },
    async close() {
      // A toolsrv that ends from now on (a Ctrl-C reaches it too) is not started again.
      supervisor?.hold();
      // A reload under way ends before the sessions close, and tells nobody.
      await config.close();
      await skills.close();
      models.close();
      await restoring?.catch(() => 0);
      const unsaved = await sessions.close();
      // A checkpoint or a rewind under way finishes: its refs and log agree with the directory.
      await making.checkpoints.idle();
      await server.close();
      await bypass.desk.close();
      await remotes.close();
      await supervisor?.stop();
      return unsaved;
    },
  };
}
