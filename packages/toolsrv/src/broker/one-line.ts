/**
 * `value` on one line: tabs, newlines and other control characters written as escapes (`\t`, `\n`, `\x1b`),
 * and a backslash as `\\`, so that a line can hold any text and still be one line.
 */
export function oneLine(value: string | number): string {
  // biome-ignore lint/suspicious/noControlCharactersInRegex: control characters are what it escapes
  return String(value).replace(/[\u0000-\u001f\u007f-\u009f\\]/g, (c) => {
    if (c === "\\") return "\\\\";
    if (c === "\t") return "\\t";
    if (c === "\n") return "\\n";
    if (c === "\r") return "\\r";
    return `\\x${c.charCodeAt(0).toString(16).padStart(2, "0")}`;
  });
}
