/** Calls `onLine` with each whole line `stream` gives. */
export function eachLine(stream: NodeJS.ReadableStream | null, onLine: (line: string) => void): void {
  let pending = "";
  // Decoded as a whole, so a character split between two chunks comes out whole.
  stream?.setEncoding("utf8");
  stream?.on("data", (chunk: string) => {
    pending += chunk;
    const lines = pending.split("\n");
    pending = lines.pop()!;
    for (const line of lines) onLine(line);
  });
}
