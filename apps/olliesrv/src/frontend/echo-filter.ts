/**
 * Drops the `» PROMPT` block the chat starts the turn with (a terminal has shown the prompt as it was typed,
 * an MCP client wrote it); anything else — a stamped prompt, another turn's text — passes as it came.
 */
export function echoFilter(prompt: string): (chunk: string) => string {
  const echo = `» ${prompt}\n\n`;
  let held: string | undefined = "";
  return (chunk) => {
    if (held === undefined) return chunk;
    held += chunk;
    const body = held.replace(/^\n+/, "");
    if (body.startsWith(echo)) {
      held = undefined;
      return body.slice(echo.length);
    }
    if (echo.startsWith(body)) return "";
    const all = held;
    held = undefined;
    return all;
  };
}
