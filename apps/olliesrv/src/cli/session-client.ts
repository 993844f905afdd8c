import { join } from "node:path";
import { defaultUname, type Fsys, hmacAuthenticator, NinepClient, ORDWR } from "@ollie/ninep";
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

/** A 9P session with olliesrv, and the file operations the `ollie` command is made of. */
export class SessionClient {
  private constructor(
    private readonly client: NinepClient,
    readonly fsys: Fsys,
  ) {}

  /** Dials olliesrv, then attaches as `whoever()` says (asked only once the daemon answers). */
  static async connect(address: string, whoever: () => Promise<Identity>): Promise<SessionClient> {
    const client = await NinepClient.dial(address).catch((e: unknown) => {
      throw new Error(`cannot reach olliesrv at ${address} (${(e as Error).message}); is it running?`);
    });
    try {
      const who = await whoever();
      const fsys = await client
        .attach({ uname: who.uname, authenticator: hmacAuthenticator(who.key) })
        .catch((error: unknown) => {
          throw new Error(
            `olliesrv at ${address} refused to attach ${JSON.stringify(who.uname)}: ${(error as Error).message}`,
          );
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
   * Submits a prompt and streams the chat of the turn to `out` as it arrives, returning how the turn ended
   * (the agent's `outcome` file) once the agent has finished it.
   */
  async ask(
    session: string,
    prompt: string,
    out: (text: string) => void,
    signal?: AbortSignal,
  ): Promise<string> {
    const agent = `session/${session}/agent/main`;
    const turnwait = await this.fsys.open(`${agent}/turnwait`);
    const tail = await this.fsys.open(`${agent}/tail`);
    const start = Number((await this.read(`${agent}/offset`)).trim());
    try {
      await this.write(`${agent}/prompt`, prompt);
      let finished = false;
      const turnEnded = turnwait.read(0, 64, signal).then(() => {
        finished = true;
      });
      let offset = start;
      let end = Number.POSITIVE_INFINITY;
      let pending: Promise<Buffer> | undefined;
      for (;;) {
        if (finished && end === Number.POSITIVE_INFINITY)
          end = Number((await this.read(`${agent}/offset`)).trim());
        if (offset >= end) break;
        pending ??= tail.read(offset, 65536, signal);
        const chunk = await (finished ? pending : Promise.race([pending, turnEnded.then(() => undefined)]));
        if (chunk === undefined) continue;
        pending = undefined;
        out(chunk.toString("utf8"));
        offset += chunk.length;
      }
      return (await this.read(`${agent}/outcome`)).trim();
    } finally {
      await turnwait.close().catch(() => {});
      await tail.close().catch(() => {});
    }
  }

  close(): void {
    this.client.close();
  }
}
