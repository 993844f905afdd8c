import { mkdir } from "node:fs/promises";
import { homedir, userInfo } from "node:os";
import { dirname, join, resolve } from "node:path";
import { fileURLToPath } from "node:url";
import { parseArgs } from "node:util";
import { formatAddress, NinepServer, parseAddress, serveUntilSignal, serviceAddress } from "@ollie/ninep";
import { resolvePolicy } from "@ollie/sandbox";
import { createToolServer, loadBypassPolicy } from "@ollie/toolsrv";
import { keyedAuth } from "./auth.js";
import { loadKeys } from "./keys.js";

const USAGE = `usage: toolsrv [-a ADDR] [--tools-path DIRS] [--sandbox NAME] [--bypass FILE] [--owner UNAME]
                [--owner-key FILE] [--protect PATH]... [--default-tools NAMES] [-D]
  -a ADDR            where to listen (default: $NAMESPACE/toolsrv)
  --tools-path DIRS  ':'-separated tool directories, earlier first
                     (default: $OLLIE_TOOLS_PATH, else $XDG_CONFIG_HOME/ollie/tools then the bundled tools)
  --sandbox NAME     the sandbox overlay $XDG_CONFIG_HOME/ollie/sandbox/NAME.yaml
  --bypass FILE      the bypass policy (default: $XDG_CONFIG_HOME/ollie/bypass.yaml; none allows nothing)
  --owner UNAME      who may approve bypass requests (default: the user running toolsrv)
  --owner-key FILE   the key the owner proves instead of OLLIE_TOOLSRV_KEY (needs it; FILE is protected)
  --protect PATH     refuse any call whose sandbox would reach PATH (repeatable)
  --default-tools N  the tools an agent starts with, comma-separated (default: client_9p)
  --exit-with-stdin  stop when standard input closes (a parent that starts toolsrv, and may die, passes this)
  -D                 trace 9P messages to stderr
With OLLIE_TOOLSRV_KEY set, every attach must prove that key (hmac-sha256 through Tauth); without it,
anyone who can reach the socket can run tools.
`;

/** The bundled default tools, built next to this file's dist/. */
export const BUNDLED_TOOLS = fileURLToPath(new URL("../tools", import.meta.url));

/** `toolsrv`: serves the tool namespace until SIGINT or SIGTERM, then kills its tools and removes its socket. */
export async function main(argv: string[], env: NodeJS.ProcessEnv = process.env): Promise<number> {
  // Taken before anything else, so no tool and no process toolsrv starts can inherit it.
  const serviceKey = env.OLLIE_TOOLSRV_KEY;
  delete env.OLLIE_TOOLSRV_KEY;
  delete process.env.OLLIE_TOOLSRV_KEY;
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
  const ownerKey = values["owner-key"];
  if (ownerKey !== undefined && serviceKey === undefined) {
    process.stderr.write(
      `toolsrv: --owner-key needs OLLIE_TOOLSRV_KEY: without it no attach is authenticated\n${USAGE}`,
    );
    return 2;
  }
  const owner = values.owner ?? userInfo().username;
  const keys = serviceKey === undefined ? undefined : await loadKeys(serviceKey, owner, ownerKey);
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
  // The owner's key file is a credential like any other: no tool may read it.
  const protect = [...(values.protect ?? []), ...(ownerKey !== undefined ? [ownerKey] : [])].map((p) =>
    resolve(p),
  );
  const tools = createToolServer({
    toolsPath,
    policy,
    owner,
    bypass,
    log,
    ...(protect.length > 0 && { protect }),
    ...(values["default-tools"] && { defaultTools: values["default-tools"].split(",").filter(Boolean) }),
    baseEnv: {
      PATH: `${dirname(process.execPath)}:/usr/local/bin:/usr/bin:/bin`,
      OLLIE_MEMORY_PATH: memory,
      ...(env.NAMESPACE && { NAMESPACE: env.NAMESPACE }),
      ...(env.OLLIE_ADDRESS && { OLLIE_ADDRESS: env.OLLIE_ADDRESS }),
    },
  });
  const server = new NinepServer(tools.tree, {
    ...(keys && { auth: keyedAuth(keys, log) }),
    ...(values.D && { trace: (line: string) => process.stderr.write(`${line}\n`) }),
    onError: (error) => log(error.message),
  });
  if (values["exit-with-stdin"]) {
    process.stdin.resume();
    process.stdin.once("end", () => process.kill(process.pid, "SIGTERM"));
  }
  const address = values.a ? parseAddress(values.a) : serviceAddress("toolsrv", env);
  try {
    await serveUntilSignal(server, address, (listener) => {
      const access = keys
        ? "every attach must prove its key"
        : "unauthenticated: OLLIE_TOOLSRV_KEY is not set, so anyone who can reach the socket can run tools";
      log(
        `serving ${toolsPath.length} tool directories on ${formatAddress(listener.boundAddress)}; ${access}`,
      );
    });
  } finally {
    // Stdin is held open to notice the parent's end; it must not keep the process alive once serving ends,
    // by a signal or because it could not start.
    if (values["exit-with-stdin"]) process.stdin.destroy();
  }
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
      "owner-key": { type: "string" },
      protect: { type: "string", multiple: true },
      "default-tools": { type: "string" },
      D: { type: "boolean" },
      "exit-with-stdin": { type: "boolean" },
      help: { type: "boolean", short: "h" },
    },
  }).values;
}
