/**
 * Paths as git prints them are bytes, not always UTF-8. They are carried here as "raw" strings, one char per
 * byte (latin1), which give the same bytes back to the file system and to git; they become readable text
 * (UTF-8, U+FFFD for what is not) only where a person sees them.
 */
export type RawPath = string;

/** The NUL-separated fields of git's `-z` output, as raw strings. */
export function splitNul(output: Uint8Array): RawPath[] {
  const text = Buffer.from(output.buffer, output.byteOffset, output.byteLength).toString("latin1");
  const fields = text.split("\0");
  if (fields.at(-1) === "") fields.pop();
  return fields;
}

/** Raw paths as git's `--stdin -z` reads them. */
export function joinNul(paths: Iterable<RawPath>): Buffer {
  let text = "";
  for (const path of paths) text += `${path}\0`;
  return Buffer.from(text, "latin1");
}

/** A path for a person. */
export function displayPath(raw: RawPath): string {
  return Buffer.from(raw, "latin1").toString("utf8");
}

/** The file-system path of `raw` under `directory`, as bytes (so nothing is re-encoded). */
export function fsPath(directory: string, raw: RawPath): Buffer {
  return Buffer.concat([Buffer.from(`${directory}/`), Buffer.from(raw, "latin1")]);
}
