import { mkdir } from "node:fs/promises";
import { homedir, userInfo } from "node:os";
import { dirname, join } from "node:path";
import { fileURLToPath } from "node:url";
import { parseArgs } from "node:util";
import { formatAddress, NinepServer, parseAddress, serveUntilSignal, serviceAddress } from "@ollie/ninep";
import { resolvePolicy } from "@ollie/sandbox";
import { createToolServer, loadBypassPolicy } from "@ollie/toolsrv";

const USAGE = `usage: toolsrv [-a ADDR] [--tools-path DIRS] [--sandbox NAME] [--bypass FILE] [--owner UNAME]
                [--default-tools NAMES] [-D]
  -a ADDR            where to listen (default: $NAMESPACE/toolsrv)
  --tools-path DIRS  ':'-separated tool directories, earlier first
                     (default: $OLLIE_TOOLS_PATH, else $XDG_CONFIG_HOME/ollie/tools then the bundled tools)
  --sandbox NAME     the sandbox overlay $XDG_CONFIG_HOME/ollie/sandbox/NAME.yaml
  --bypass FILE      the bypass policy (default: $XDG_CONFIG_HOME/ollie/bypass.yaml; none allows nothing)
  --owner UNAME      who may approve bypass requests (default: the user running toolsrv)
  --default-tools N  the tools an agent starts with, comma-separated (default: client_9p)
  --exit-with-stdin  stop when standard input closes (a parent that starts toolsrv, and may die, passes this)
  -D                 trace 9P messages to stderr
`;

/** The bundled default tools, built next to this file's dist/. */
export const BUNDLED_TOOLS = fileURLToPath(new URL("../tools", import.meta.url));

/** `toolsrv`: serves the tool namespace until SIGINT or SIGTERM, then kills its tools and removes its socket. */
export async function main(argv: string[], env: NodeJS.ProcessEnv = process.env): Promise<number> {
  let values: ReturnType<typeof parse>;
  try {
    values = parse(argv);
  } catch (error) {
    process.stderr.write(`toolsrv: ${(error as Error).message}\n${USAGE}`);
    return 2;
  }
  if (values.help) {
    process.stdout.write(USAGE);
    return 0;
  }
  const config = join(env.XDG_CONFIG_HOME || join(env.HOME || homedir(), ".config"), "ollie");
  const toolsPath = (
    values["tools-path"] ??
    env.OLLIE_TOOLS_PATH ??
    `${join(config, "tools")}:${BUNDLED_TOOLS}`
  )
    .split(":")
    .filter(Boolean);
  const memory = env.OLLIE_MEMORY_PATH || join(config, "memory");
  await mkdir(memory, { recursive: true, mode: 0o700 });
  const policy = await resolvePolicy({
    env,
    ...(values.sandbox !== undefined && { name: values.sandbox }),
    layers: [{ layer: { filesystem: { rw: [memory] } }, source: "toolsrv (the memory directory)" }],
  });
  const bypass = await loadBypassPolicy(values.bypass ?? join(config, "bypass.yaml"));
  const log = (line: string) => process.stderr.write(`toolsrv: ${line.endsWith("\n") ? line : `${line}\n`}`);
  const tools = createToolServer({
    toolsPath,
    policy,
    owner: values.owner ?? userInfo().username,
    bypass,
    log,
    ...(values["default-tools"] && { defaultTools: values["default-tools"].split(",").filter(Boolean) }),
    baseEnv: {
      PATH: `${dirname(process.execPath)}:/usr/local/bin:/usr/bin:/bin`,
      OLLIE_MEMORY_PATH: memory,
      ...(env.NAMESPACE && { NAMESPACE: env.NAMESPACE }),
      ...(env.OLLIE_ADDRESS && { OLLIE_ADDRESS: env.OLLIE_ADDRESS }),
    },
  });
  const server = new NinepServer(tools.tree, {
    ...(values.D && { trace: (line: string) => process.stderr.write(`${line}\n`) }),
    onError: (error) => log(error.message),
  });
  if (values["exit-with-stdin"]) {
    process.stdin.resume();
    process.stdin.once("end", () => process.kill(process.pid, "SIGTERM"));
  }
  const address = values.a ? parseAddress(values.a) : serviceAddress("toolsrv", env);
  await serveUntilSignal(server, address, (listener) => {
    log(`serving ${toolsPath.length} tool directories on ${formatAddress(listener.boundAddress)}`);
  });
  await tools.close();
  await server.close();
  return 0;
}

function parse(argv: string[]) {
  return parseArgs({
    args: argv,
    options: {
      a: { type: "string" },
      "tools-path": { type: "string" },
      sandbox: { type: "string" },
      bypass: { type: "string" },
      owner: { type: "string" },
      "default-tools": { type: "string" },
      D: { type: "boolean" },
      "exit-with-stdin": { type: "boolean" },
      help: { type: "boolean", short: "h" },
    },
  }).values;
}
