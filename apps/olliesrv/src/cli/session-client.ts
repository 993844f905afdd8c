import { join } from "node:path";
import { StringDecoder } from "node:string_decoder";
import { defaultUname, type File, type Fsys, hmacAuthenticator, NinepClient, ORDWR } from "@ollie/ninep";
import { readOwnerKey } from "../auth/owner-key.js";
import { olliePaths } from "../paths.js";

/** The daemon's default address: `$NAMESPACE/ollie`. */
export function defaultAddress(env: NodeJS.ProcessEnv = process.env): string {
  return `unix!${join(olliePaths(env).namespace, "ollie")}`;
}

/** Who the command attaches as, and the secret that proves it. */
export interface Identity {
  uname: string;
  key: string;
}

/**
 * Who the command is: `-u`/`-k` when given; inside an agent's tool, that agent (OLLIE_UNAME and OLLIE_KEY);
 * otherwise the owner, with the owner key file.
 */
export async function identity(
  flags: { uname?: string | undefined; keyFile?: string | undefined },
  env: NodeJS.ProcessEnv = process.env,
): Promise<Identity> {
  if (flags.keyFile !== undefined)
    return { uname: flags.uname ?? defaultUname(), key: await readOwnerKey(flags.keyFile) };
  if (flags.uname === undefined && env.OLLIE_UNAME && env.OLLIE_KEY)
    return { uname: env.OLLIE_UNAME, key: env.OLLIE_KEY };
  return { uname: flags.uname ?? defaultUname(), key: await readOwnerKey(olliePaths(env).ownerKey) };
}

/**
 * olliesrv could not be dialled at `address`: `code` is the system's reason (ENOENT: no socket there;
 * ECONNREFUSED: nothing listens on it).
 */
export class DialError extends Error {
  override readonly name = "DialError";
  constructor(
    readonly address: string,
    readonly code: string | undefined,
    problem: string,
  ) {
    super(`cannot reach olliesrv at ${address} (${problem}); is it running?`);
  }

  /** Whether this says that no olliesrv runs there (rather than that the address is wrong). */
  get notRunning(): boolean {
    return this.code === "ENOENT" || this.code === "ECONNREFUSED";
  }
}

/** olliesrv answered, but refused to attach `uname` (a wrong key, or a uname it does not know). */
export class AttachRefusedError extends Error {
  override readonly name = "AttachRefusedError";
  constructor(
    readonly address: string,
    readonly uname: string,
    problem: string,
  ) {
    super(`olliesrv at ${address} refused to attach ${JSON.stringify(uname)}: ${problem}`);
  }
}

/** A 9P session with olliesrv, and the file operations the `ollie` command is made of. */
export class SessionClient {
  private constructor(
    private readonly client: NinepClient,
    readonly fsys: Fsys,
  ) {}

  /** Dials olliesrv, then attaches as `whoever()` says (asked only once the daemon answers). */
  static async connect(address: string, whoever: () => Promise<Identity>): Promise<SessionClient> {
    const client = await NinepClient.dial(address).catch((e: unknown) => {
      throw new DialError(address, (e as NodeJS.ErrnoException).code, (e as Error).message);
    });
    try {
      const who = await whoever();
      const fsys = await client
        .attach({ uname: who.uname, authenticator: hmacAuthenticator(who.key) })
        .catch((error: unknown) => {
          throw new AttachRefusedError(address, who.uname, (error as Error).message);
        });
      return new SessionClient(client, fsys);
    } catch (error) {
      client.close();
      throw error;
    }
  }

  async read(path: string): Promise<string> {
    return (await this.fsys.readFile(path)).toString("utf8");
  }

  async write(path: string, text: string): Promise<void> {
    await this.fsys.writeFile(path, text);
  }

  /** Creates a session from a spec; returns its id. */
  async create(spec: string): Promise<string> {
    const f = await this.fsys.open("session/new", ORDWR);
    try {
      await f.write(spec);
      return (await f.read(0)).toString("utf8").trim();
    } finally {
      await f.close();
    }
  }

  /**
   * Writes a prompt to `agent` (`session/ID/agent/NAME`) and answers its number once the agent has taken it:
   * `prompts/N` then waits for that turn's end.
   */
  async submit(agent: string, prompt: string): Promise<string> {
    return this.fsys.withFile(`${agent}/prompt`, ORDWR, async (f) => {
      await f.write(prompt, 0);
      return (await f.read(0)).toString("utf8").trim();
    });
  }

  /**
   * Submits a prompt and streams the chat to `out` as it arrives, returning how the prompt's turn ended (the
   * first line of `prompts/N`) once the agent has finished it — that turn, not one queued before it.
   * `submitted` is called once the agent has taken the prompt (so a turn to stop exists), with its number: its
   * `prompts/N` holds the turn's last reply once it has ended.
   */
  async ask(
    session: string,
    prompt: string,
    out: (text: string) => void,
    signal?: AbortSignal,
    hooks: { submitted?: (ticket: string) => void } = {},
  ): Promise<string> {
    const agent = `session/${session}/agent/main`;
    const tail = await this.fsys.open(`${agent}/tail`);
    const start = Number((await this.read(`${agent}/offset`)).trim());
    let ended: File | undefined;
    try {
      const ticket = await this.submit(agent, prompt);
      hooks.submitted?.(ticket);
      ended = await this.fsys.open(`${agent}/prompts/${ticket}`);
      let finished = false;
      let outcome = "";
      const turnEnded = ended.read(0, 65536, signal).then((answer) => {
        outcome = answer.toString("utf8").split("\n", 1)[0]!;
        finished = true;
      });
      // Its failure (the signal, a killed session) is the loop's too; this keeps it from going unhandled.
      turnEnded.catch(() => {});
      let offset = start;
      let end = Number.POSITIVE_INFINITY;
      let pending: Promise<Buffer> | undefined;
      // A read may end inside a character; the decoder keeps its first bytes for the next chunk.
      const utf8 = new StringDecoder("utf8");
      for (;;) {
        if (finished && end === Number.POSITIVE_INFINITY)
          end = Number((await this.read(`${agent}/offset`)).trim());
        if (offset >= end) break;
        pending ??= tail.read(offset, 65536, signal);
        const chunk = await (finished ? pending : Promise.race([pending, turnEnded.then(() => undefined)]));
        if (chunk === undefined) continue;
        pending = undefined;
        const text = utf8.write(chunk);
        if (text) out(text);
        offset += chunk.length;
      }
      await turnEnded;
      return outcome;
    } finally {
      const closing = Promise.all([ended?.close().catch(() => {}), tail.close().catch(() => {})]);
      // Leaving on the signal is leaving at once: the daemon may be too busy to answer the clunks.
      if (!signal?.aborted) await closing;
    }
  }

  /**
   * Opens a wait file (`statewait`, `turnwait`): each `next()` is one blocking read that returns the value
   * once it differs from the last one this fid returned (the value at open, at first). Open it before what
   * changes the value, so that no change is missed.
   */
  async watch(
    path: string,
  ): Promise<{ next(signal?: AbortSignal): Promise<string>; close(): Promise<void> }> {
    const f = await this.fsys.open(path);
    return {
      next: async (signal) => (await f.read(0, 4096, signal)).toString("utf8").trim(),
      close: () => f.close().catch(() => {}),
    };
  }

  /** Settles when the connection is gone: closed here, or by olliesrv (it stopped or restarted). */
  get closed(): Promise<void> {
    return this.client.closed;
  }

  close(): void {
    this.client.close();
  }
}
