import { createInterface } from "node:readline";
import { parseArgs } from "node:util";
import type { File } from "../client/file.js";
import { DM, ORDWR, OTRUNC, OWRITE } from "../codec/constants.js";
import { formatStat } from "../codec/format.js";
import { longListing } from "./long-listing.js";
import type { Sessions } from "./session.js";
import { UsageError } from "./usage.js";

export interface Io {
  stdin: NodeJS.ReadableStream;
  stdout: NodeJS.WritableStream;
  stderr: NodeJS.WritableStream;
}

type Command = (args: string[], sessions: Sessions, io: Io) => Promise<number>;

function paths(positionals: string[], command: string, max = Number.POSITIVE_INFINITY): string[] {
  if (positionals.length === 0) throw new UsageError(`${command} needs a path`);
  if (positionals.length > max) throw new UsageError(`${command} takes one path`);
  return positionals;
}

function write(out: NodeJS.WritableStream, data: string | Uint8Array): Promise<void> {
  return new Promise((resolve, reject) => out.write(data, (err) => (err ? reject(err) : resolve())));
}

/** Runs `fn` for each path, reporting failures as `ninep: PATH: error` and going on with the rest. */
async function each(list: string[], io: Io, fn: (path: string) => Promise<void>): Promise<number> {
  let status = 0;
  for (const p of list) {
    try {
      await fn(p);
    } catch (err) {
      io.stderr.write(`ninep: ${p}: ${errorMessage(err)}\n`);
      status = 1;
    }
  }
  return status;
}

export function errorMessage(err: unknown): string {
  if (err && typeof err === "object" && "ename" in err) return String(err.ename);
  return err instanceof Error ? err.message : String(err);
}

const ls: Command = async (args, sessions, io) => {
  const { values, positionals } = parseArgs({
    args,
    options: { l: { type: "boolean" }, d: { type: "boolean" } },
    allowPositionals: true,
  });
  return each(paths(positionals, "ls"), io, async (p) => {
    const { fsys, path } = await sessions.resolve(p);
    const st = await fsys.stat(path);
    const entries = st.mode & DM.DIR && !values.d ? await fsys.readdir(path) : [st];
    entries.sort((a, b) => (a.name < b.name ? -1 : a.name > b.name ? 1 : 0));
    const lines = values.l ? longListing(entries) : entries.map((e) => e.name);
    if (lines.length > 0) await write(io.stdout, `${lines.join("\n")}\n`);
  });
};

const read: Command = async (args, sessions, io) =>
  each(paths(args, "read", 1), io, async (p) => {
    const { fsys, path } = await sessions.resolve(p);
    for await (const chunk of fsys.stream(path)) await write(io.stdout, chunk);
  });

/**
 * Copies standard input to the file: as it arrives, or one Twrite per line with -l (for ctl files). With -r,
 * then reads the file through the same open and copies its answer to standard output — how a clone file
 * names what the write made, or a prompt file its number.
 */
const writeCommand: Command = async (args, sessions, io) => {
  const { values, positionals } = parseArgs({
    args,
    options: { l: { type: "boolean" }, r: { type: "boolean" } },
    allowPositionals: true,
  });
  return each(paths(positionals, "write", 1), io, async (p) => {
    const { fsys, path } = await sessions.resolve(p);
    await fsys.withFile(path, (values.r ? ORDWR : OWRITE) | OTRUNC, async (file) => {
      let offset = 0;
      if (values.l) {
        for await (const line of createInterface({ input: io.stdin, crlfDelay: Number.POSITIVE_INFINITY })) {
          offset += await file.write(`${line}\n`, offset);
        }
      } else {
        for await (const chunk of io.stdin) offset += await file.write(chunk as Buffer, offset);
      }
      if (values.r) await showAnswer(file, io);
    });
  });
};

const rdwr: Command = async (args, sessions, io) =>
  each(paths(args, "rdwr", 1), io, async (p) => {
    const { fsys, path } = await sessions.resolve(p);
    await fsys.withFile(path, ORDWR, (file) => readWriteLoop(file, io));
  });

/**
 * Shows the file, then writes each input line to it and shows it again. A failure of the first read is not
 * reported: a clone or prompt file has nothing to say before it is written.
 */
async function readWriteLoop(file: File, io: Io): Promise<void> {
  await showAnswer(file, io).catch(() => {});
  for await (const line of createInterface({ input: io.stdin, crlfDelay: Number.POSITIVE_INFINITY })) {
    try {
      await file.write(line, 0);
      await showAnswer(file, io);
    } catch (err) {
      io.stderr.write(`ninep: ${errorMessage(err)}\n`);
    }
  }
}

/** Copies what a read at offset 0 gives to standard output, ending it with a newline if it has none. */
async function showAnswer(file: File, io: Io): Promise<void> {
  const answer = await file.read(0);
  if (answer.length === 0) return;
  await write(io.stdout, answer.at(-1) === 0x0a ? answer : Buffer.concat([answer, Buffer.from("\n")]));
}

const stat: Command = async (args, sessions, io) =>
  each(paths(args, "stat"), io, async (p) => {
    const { fsys, path } = await sessions.resolve(p);
    await write(io.stdout, `${formatStat(await fsys.stat(path))}\n`);
  });

const create: Command = async (args, sessions, io) => {
  const { values, positionals } = parseArgs({
    args,
    options: { d: { type: "boolean" }, m: { type: "string" } },
    allowPositionals: true,
  });
  if (values.m !== undefined && !/^[0-7]{1,4}$/.test(values.m))
    throw new UsageError(`bad mode '${values.m}'`);
  const bits = values.m !== undefined ? Number.parseInt(values.m, 8) : values.d ? 0o755 : 0o644;
  return each(paths(positionals, "create"), io, async (p) => {
    const { fsys, path } = await sessions.resolve(p);
    const f = await fsys.create(path, { perm: values.d ? (DM.DIR | bits) >>> 0 : bits });
    await f.close();
  });
};

const rm: Command = async (args, sessions, io) =>
  each(paths(args, "rm"), io, async (p) => {
    const { fsys, path } = await sessions.resolve(p);
    await fsys.remove(path);
  });

export const COMMANDS: Record<string, Command> = { ls, read, write: writeCommand, rdwr, stat, create, rm };
