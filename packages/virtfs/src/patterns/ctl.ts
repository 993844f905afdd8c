import { Errno, errnoOf, NinepError } from "@ollie/ninep";
import type { FileContext, FileHandlers, OpenContext } from "../spec/context.js";
import { slice, toBuffer } from "./bytes.js";
import { producedLength } from "./produced-length.js";

/** What a command handler gets besides its arguments. */
export interface CommandContext extends FileContext {
  /** The command's name. */
  readonly command: string;
  /** Everything after the command's name, as written (arguments may contain spaces). */
  readonly rest: string;
}

/** Handles one command: `args` are the whitespace-separated words after its name. Throw to refuse it. */
export type CommandHandler = (args: string[], ctx: CommandContext) => void | Promise<void>;

export interface CtlOptions {
  /** What reading the file shows (default: the command names, one per line). */
  read?: (ctx: OpenContext) => string | Uint8Array | Promise<string | Uint8Array>;
  /** Whether a stat calls `read` to report the length of what a read would show, as `text`'s `size`. */
  size?: boolean;
}

/**
 * A control file: each line written is a command, `name args...`. An unknown command, or a handler that
 * throws, makes that write fail with an error saying what was wrong; the lines of a write before the
 * failing one have been carried out.
 */
export function ctl(
  commands: Record<string, CommandHandler>,
  options: CtlOptions = {},
): FileHandlers<Buffer> {
  const names = Object.keys(commands).sort();
  const show = options.read ?? (() => names.map((n) => `${n}\n`).join(""));
  return {
    async open(ctx) {
      return toBuffer(await show(ctx));
    },
    read: ({ state, offset, count }) => slice(state, offset, count),
    length: (ctx) => ctx.state?.length ?? (options.size === false ? 0 : producedLength(show, ctx)),
    async write(ctx) {
      for (const raw of ctx.data.toString("utf8").split("\n")) {
        const line = raw.replace(/\r$/, "").trim();
        if (line === "") continue;
        const [command = "", ...args] = line.split(/\s+/);
        const handler = Object.hasOwn(commands, command) ? commands[command] : undefined;
        if (!handler) {
          throw new NinepError(`unknown command '${command}'; commands: ${names.join(", ")}`, {
            errno: Errno.EINVAL,
          });
        }
        const rest = line.slice(command.length).trim();
        try {
          await handler(
            args,
            Object.assign(Object.create(ctx) as FileContext, { command, rest }) as CommandContext,
          );
        } catch (err) {
          // A command that could not be done is EINVAL, unless its error says what it is.
          throw new NinepError(`${command}: ${err instanceof Error ? err.message : String(err)}`, {
            errno: errnoOf(err, Errno.EINVAL),
            cause: err,
          });
        }
      }
      return ctx.data.length;
    },
  };
}
