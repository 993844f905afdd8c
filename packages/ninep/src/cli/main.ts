import { parseArgs } from "node:util";
import { defaultUname } from "../transport/address.js";
import { COMMANDS, errorMessage, type Io } from "./commands.js";
import { ramfsCommand } from "./ramfs-command.js";
import { type GlobalOptions, Sessions } from "./session.js";
import { USAGE, UsageError } from "./usage.js";

const GLOBAL_OPTIONS = {
  a: { type: "string" },
  A: { type: "string" },
  u: { type: "string" },
  k: { type: "string" },
  D: { type: "boolean" },
  L: { type: "boolean" },
  help: { type: "boolean", short: "h" },
  version: { type: "boolean" },
} as const;

/** The options before the command word are ninep's own; from the command word on, the command's. */
function parseGlobals(argv: string[]) {
  const { tokens } = parseArgs({
    args: argv,
    options: GLOBAL_OPTIONS,
    strict: false,
    allowPositionals: true,
    tokens: true,
  });
  const first = tokens.find((t) => t.kind !== "option");
  const end = first?.index ?? argv.length;
  const { values } = parseArgs({ args: argv.slice(0, end), options: GLOBAL_OPTIONS });
  const options: GlobalOptions = {
    address: values.a,
    aname: values.A ?? "",
    uname: values.u ?? defaultUname(),
    keyFile: values.k,
    trace: values.D ?? false,
    linux: values.L ?? false,
  };
  const rest = argv.slice(first?.kind === "option-terminator" ? end + 1 : end);
  return { options, rest, help: values.help, version: values.version };
}

/** The `ninep` command. Returns the exit status: 0 success, 1 a failed operation, 2 a usage mistake. */
export async function main(argv: string[], io: Io = process): Promise<number> {
  let sessions: Sessions | undefined;
  try {
    const { options, rest, help, version } = parseGlobals(argv);
    if (help) {
      io.stdout.write(USAGE);
      return 0;
    }
    if (version) {
      io.stdout.write(`${__PACKAGE_VERSION__}\n`);
      return 0;
    }
    const [command, ...args] = rest;
    if (!command) throw new UsageError("no command given");
    if (command === "ramfs") return await ramfsCommand(args, io, options.address, options.trace);
    const run = COMMANDS[command];
    if (!run) throw new UsageError(`unknown command '${command}'`);
    sessions = new Sessions(options);
    return await run(args, sessions, io);
  } catch (err) {
    if (err instanceof UsageError || (err as { code?: string }).code?.startsWith("ERR_PARSE_ARGS")) {
      if (err instanceof Error && err.message) io.stderr.write(`ninep: ${err.message}\n`);
      io.stderr.write(USAGE);
      return 2;
    }
    io.stderr.write(`ninep: ${errorMessage(err)}\n`);
    return 1;
  } finally {
    await sessions?.close();
  }
}
