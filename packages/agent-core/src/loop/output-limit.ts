/**
 * Caps what the model sees of a tool's output at `limitBytes` of UTF-8: the start and the end are kept
 * (errors tend to be at the end), with a marker in between that says how much was cut.
 */
export function capOutput(output: string, limitBytes: number): string {
  const bytes = Buffer.byteLength(output, "utf8");
  if (bytes <= limitBytes) return output;
  const buf = Buffer.from(output, "utf8");
  const tailBytes = Math.floor(limitBytes / 4);
  const headBytes = limitBytes - tailBytes;
  const head = wholeChars(buf.subarray(0, headBytes));
  const tail = wholeChars(buf.subarray(buf.length - tailBytes), true);
  const cut = bytes - Buffer.byteLength(head) - Buffer.byteLength(tail);
  return `${head}\n[output truncated: ${cut.toLocaleString("en")} of ${bytes.toLocaleString("en")} bytes cut from the middle]\n${tail}`;
}

/** The text of `bytes`, dropping a character split at the cut edge instead of making a replacement char. */
function wholeChars(bytes: Buffer, cutAtStart = false): string {
  let start = 0;
  let end = bytes.length;
  if (cutAtStart) while (start < end && (bytes[start]! & 0xc0) === 0x80) start++;
  else {
    let back = end - 1;
    while (back > 0 && (bytes[back]! & 0xc0) === 0x80) back--;
    const lead = bytes[back]!;
    const need = lead >= 0xf0 ? 4 : lead >= 0xe0 ? 3 : lead >= 0xc0 ? 2 : 1;
    if (back + need > end) end = back;
  }
  return bytes.subarray(start, end).toString("utf8");
}
