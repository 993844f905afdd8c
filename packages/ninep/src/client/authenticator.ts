/** The auth file (afid) as an authenticator sees it. */
export interface AuthFile {
  read(count: number): Promise<Buffer>;
  write(data: Uint8Array): Promise<number>;
}

/**
 * Proves an identity over an auth file: reads the server's challenge and writes the answer. Resolve once
 * the proof is written; throw to give up. The client then attaches with this afid.
 */
export type Authenticator = (afile: AuthFile, who: { uname: string; aname: string }) => Promise<void>;
