/** A line of ollie mcp's own, for whoever reads its standard error: standard output is the MCP client's. */
export function log(line: string): void {
  process.stderr.write(`ollie mcp: ${line}\n`);
}
