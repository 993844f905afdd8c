import { type File, type Fsys, NinepRemoteError, ORDWR, OREAD } from "@ollie/ninep";
import { RefusedError } from "../errors.js";

/**
 * The file operations the client is made of, on olliesrv's attached tree. Every refusal becomes a
 * RefusedError naming the file it was about (the 9P client's error names it only for some requests: a text
 * file refuses a write at its clunk, which names no path); aborts and a lost connection pass as they are.
 */
export class NamespaceFiles {
  constructor(private readonly fsys: Fsys) {}

  /** The whole file as text; for a file that blocks (`prompts/N`), once it has answered. */
  async read(path: string, signal?: AbortSignal): Promise<string> {
    return (await this.readBytes(path, signal)).toString("utf8");
  }

  async readBytes(path: string, signal?: AbortSignal): Promise<Buffer> {
    return refusals(path, () => this.fsys.readFile(path, signal));
  }

  /** Replaces a file's content with `text` (a ctl command, a cfg line): taken when the file is closed. */
  async write(path: string, text: string, signal?: AbortSignal): Promise<void> {
    await refusals(path, () => this.fsys.writeFile(path, text, signal ? { signal } : {}));
  }

  /**
   * Writes `text` and reads the answer on the same open (ORDWR), as `session/new`, `prompt` and `fork` take
   * a request and answer it: the answer, without its newline.
   */
  async exchange(path: string, text: string, signal?: AbortSignal): Promise<string> {
    return refusals(path, () =>
      this.fsys.withFile(
        path,
        ORDWR,
        async (f) => {
          await f.write(text, 0, signal);
          return (await f.read(0, f.chunkSize, signal)).toString("utf8").trim();
        },
        signal,
      ),
    );
  }

  /**
   * What a file that grows while something runs holds now (a process's `output`, whose read at its end
   * waits for more): reads in order until a read comes back short — the end of what was there then — or
   * empty, the end of the file. Only a read that finds nothing there yet waits: the first, or one after a
   * read that came back full.
   */
  async readSoFar(path: string, signal?: AbortSignal): Promise<Buffer> {
    return refusals(path, () =>
      this.fsys.withFile(
        path,
        OREAD,
        async (f) => {
          const chunks: Buffer[] = [];
          for (let offset = 0; ; ) {
            const chunk = await f.read(offset, f.chunkSize, signal);
            chunks.push(chunk);
            offset += chunk.length;
            if (chunk.length < f.chunkSize) return Buffer.concat(chunks);
          }
        },
        signal,
      ),
    );
  }

  /** Opens a file whose reads are a stream or a wait (`tail`, `events`, `statewait`): close it when done. */
  async open(path: string, mode = OREAD, signal?: AbortSignal): Promise<OpenFile> {
    return new OpenFile(await refusals(path, () => this.fsys.open(path, mode, signal)));
  }

  /** The names in a directory. */
  async list(path: string, signal?: AbortSignal): Promise<string[]> {
    return (await refusals(path, () => this.fsys.readdir(path, signal))).map((entry) => entry.name);
  }
}

/** An open file of the namespace, its refusals made RefusedErrors. */
export class OpenFile {
  constructor(private readonly file: File) {}

  get path(): string {
    return this.file.path;
  }

  /** One read at `offset`: an empty buffer is the end of the file. */
  read(offset: number, signal?: AbortSignal): Promise<Buffer> {
    return refusals(this.file.path, () => this.file.read(offset, this.file.chunkSize, signal));
  }

  /**
   * A wait file's whole answer: one read at offset 0, which waits for the change, then the rest of the same
   * answer while a read comes back full (an answer longer than one read: a long session list).
   */
  async readAnswer(signal?: AbortSignal): Promise<Buffer> {
    const chunks: Buffer[] = [];
    for (let offset = 0; ; ) {
      const chunk = await this.read(offset, signal);
      chunks.push(chunk);
      offset += chunk.length;
      if (chunk.length < this.file.chunkSize) return Buffer.concat(chunks);
    }
  }

  async write(text: string, signal?: AbortSignal): Promise<void> {
    await refusals(this.file.path, () => this.file.write(text, 0, signal));
  }

  /**
   * Lets the fid go. A reader that leaves on an abort does not wait for the answer (the daemon may be too
   * busy to give it soon); a failure to close is nobody's concern then either.
   */
  async close(leaving = false): Promise<void> {
    const closing = this.file.close().catch(() => {});
    if (!leaving) await closing;
  }
}

/** Runs a request on `path`; the daemon's refusal becomes a RefusedError about that path. */
export async function refusals<T>(path: string, request: () => Promise<T>): Promise<T> {
  try {
    return await request();
  } catch (error) {
    if (error instanceof NinepRemoteError)
      throw new RefusedError(path, error.ename, error.request, { cause: error });
    throw error;
  }
}
