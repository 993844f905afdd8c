import { userInfo } from "node:os";
import { join } from "node:path";
import { parseArgs } from "node:util";
import { formatAddress, NinepServer, parseAddress, serveUntilSignal } from "@ollie/ninep";
import { loadBackends } from "./config/backends.js";
import { loadSkills } from "./config/skills.js";
import { ollieTree } from "./namespace/tree.js";
import { ensureDirs, olliePaths } from "./paths.js";
import type { AgentEnvironment } from "./session/agent-slot.js";
import { Sessions } from "./session/sessions.js";
import { startToolsrv, type ToolsrvProcess } from "./toolsrv-process.js";

const USAGE = `usage: olliesrv [-a ADDR] [--toolsrv ADDR] [-D]
  -a ADDR          where to serve the namespace (default: $NAMESPACE/ollie)
  --toolsrv ADDR   use a toolsrv already running at ADDR instead of starting one at $NAMESPACE/toolsrv
  -D               trace 9P messages to stderr
`;

/**
 * `olliesrv`: the session daemon. Boot, in order: paths, configuration, toolsrv, the namespace, the listener,
 * then the saved sessions (so restored agents come up on a live tree). SIGINT or SIGTERM stops every turn,
 * saves every session, closes the listener (removing the socket) and stops toolsrv.
 */
export async function main(argv: string[], env: NodeJS.ProcessEnv = process.env): Promise<number> {
  let values: ReturnType<typeof parse>;
  try {
    values = parse(argv);
  } catch (error) {
    process.stderr.write(`olliesrv: ${(error as Error).message}\n${USAGE}`);
    return 2;
  }
  if (values.help) {
    process.stdout.write(USAGE);
    return 0;
  }
  const log = (line: string) => process.stderr.write(`olliesrv: ${line.replace(/\n$/, "")}\n`);
  const paths = olliePaths(env);
  await ensureDirs(paths);
  const address = values.a ?? `unix!${join(paths.namespace, "ollie")}`;
  const backends = await loadBackends(paths, log);
  const skills = await loadSkills([join(paths.config, "skills"), join(paths.defaults, "skills")], log);

  let toolsrv: ToolsrvProcess | undefined;
  const toolsrvAddress = values.toolsrv ?? `unix!${join(paths.namespace, "toolsrv")}`;
  if (!values.toolsrv)
    toolsrv = await startToolsrv(toolsrvAddress, { OLLIE_ADDRESS: address }, (l) =>
      process.stderr.write(`${l}\n`),
    );

  const environment: AgentEnvironment = {
    backends,
    agentDirs: [join(paths.config, "agents"), join(paths.defaults, "agents")],
    skills: () => skills,
    toolsrvAddress,
    prompt: { ollieDir: paths.config, env: { ...env, OLLIE_DEFAULTS: paths.defaults } },
    snapshotDir: paths.sessions,
    backendsConf: join(paths.config, "backends.conf"),
  };
  const sessions = new Sessions(paths.sessions, paths.corrupt, environment, log);
  const server = new NinepServer(ollieTree(sessions, userInfo().username), {
    ...(values.D && { trace: (line: string) => process.stderr.write(`${line}\n`) }),
    onError: (error) => log(error.message),
  });
  let restoring: Promise<void> = Promise.resolve();
  try {
    await serveUntilSignal(server, parseAddress(address), (listener) => {
      const bound = formatAddress(listener.boundAddress);
      log(
        `serving on ${bound} (toolsrv at ${toolsrvAddress}); default backend: ${backends.conf.defaultProfile ?? "none"}`,
      );
      log(`try: ollie -a '${bound}' ask "hello"   (backends are configured in ${environment.backendsConf})`);
      const started = performance.now();
      restoring = sessions.restore().then(
        (n) => {
          const ms = (performance.now() - started).toFixed(0);
          log(`restored ${n} session${n === 1 ? "" : "s"} from ${paths.sessions} in ${ms} ms`);
        },
        (e: unknown) => {
          log(`restoring sessions failed: ${(e as Error).message}`);
        },
      );
    });
  } finally {
    await restoring;
    await sessions.close();
    await server.close();
    await toolsrv?.stop();
  }
  return 0;
}

function parse(argv: string[]) {
  return parseArgs({
    args: argv,
    options: {
      a: { type: "string" },
      toolsrv: { type: "string" },
      D: { type: "boolean" },
      help: { type: "boolean", short: "h" },
    },
  }).values;
}
