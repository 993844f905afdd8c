import { readFile } from "node:fs/promises";

/** The keys an attach must prove. */
export interface ToolsrvKeys {
  /** What every uname proves: the daemon that starts toolsrv acts for all its agents. */
  service: Uint8Array;
  /** The owner proves this key instead of the service key, so the daemon cannot speak as the owner. */
  owner?: { uname: string; key: Uint8Array };
}

/**
 * toolsrv's keys: `service` (OLLIE_TOOLSRV_KEY's value) as its utf8 bytes, as hmacAuthenticator(string)
 * uses them, and the owner's from `ownerKeyFile`, its text trimmed. An empty key is refused rather than
 * accepted as a secret anyone can guess.
 */
export async function loadKeys(service: string, owner: string, ownerKeyFile?: string): Promise<ToolsrvKeys> {
  if (service === "") {
    throw new Error(
      "OLLIE_TOOLSRV_KEY is set but empty: set it to a secret, or unset it to serve unauthenticated",
    );
  }
  const keys: ToolsrvKeys = { service: Buffer.from(service, "utf8") };
  if (ownerKeyFile === undefined) return keys;
  let text: string;
  try {
    text = (await readFile(ownerKeyFile, "utf8")).trim();
  } catch (error) {
    throw new Error(`--owner-key: ${(error as Error).message}`);
  }
  if (text === "") throw new Error(`--owner-key: ${ownerKeyFile} is empty`);
  return { ...keys, owner: { uname: owner, key: Buffer.from(text, "utf8") } };
}

/**
 * The first line of `stream` (a key its writer sends before anything else), without its line end. The
 * stream keeps flowing afterwards, so its end can still be noticed.
 */
export function firstLine(stream: NodeJS.ReadableStream, maxBytes = 4096): Promise<string> {
  return new Promise((resolve, reject) => {
    let text = "";
    const done = (settle: () => void) => {
      stream.off("data", onData);
      stream.off("end", onEnd);
      settle();
    };
    const onData = (chunk: Buffer | string) => {
      text += chunk.toString();
      const end = text.indexOf("\n");
      if (end >= 0) done(() => resolve(text.slice(0, end).replace(/\r$/, "")));
      else if (text.length > maxBytes)
        done(() => reject(new Error(`no line end in the first ${maxBytes} bytes`)));
    };
    const onEnd = () => done(() => reject(new Error("standard input ended before a whole line")));
    stream.on("data", onData);
    stream.once("end", onEnd);
  });
}
