import { defaultUname } from "../transport/address.js";
import { COMMANDS, errorMessage, type Io } from "./commands.js";
import { ramfsCommand } from "./ramfs-command.js";
import { type GlobalOptions, Sessions } from "./session.js";
import { USAGE, UsageError } from "./usage.js";

const FLAGS_WITH_VALUES: Record<string, keyof GlobalOptions> = {
  "-a": "address",
  "-A": "aname",
  "-u": "uname",
  "-k": "keyFile",
};

function parseGlobals(argv: string[]): { options: GlobalOptions; rest: string[] } {
  const options: GlobalOptions = { aname: "", uname: defaultUname(), trace: false };
  let i = 0;
  for (; i < argv.length; i++) {
    const arg = argv[i]!;
    if (arg === "-D") options.trace = true;
    else if (arg === "-h" || arg === "--help") throw new UsageError("");
    else if (arg in FLAGS_WITH_VALUES) {
      const value = argv[++i];
      if (value === undefined) throw new UsageError(`${arg} needs a value`);
      (options as unknown as Record<string, string>)[FLAGS_WITH_VALUES[arg]!] = value;
    } else if (arg.startsWith("-")) throw new UsageError(`unknown option ${arg}`);
    else break;
  }
  return { options, rest: argv.slice(i) };
}

/** The `ninep` command. Returns the exit status: 0 success, 1 a failed operation, 2 a usage mistake. */
export async function main(argv: string[], io: Io = process): Promise<number> {
  let sessions: Sessions | undefined;
  try {
    const { options, rest } = parseGlobals(argv);
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
