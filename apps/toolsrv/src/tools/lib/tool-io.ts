import { resolve } from "node:path";

/** A mistake the model can fix: printed on stderr, exit status 1. */
export class ToolError extends Error {
  override readonly name = "ToolError";
}

/** Runs a tool: reads its JSON arguments from stdin, prints what `body` returns, reports a ToolError. */
export async function tool(body: (args: Record<string, unknown>) => Promise<string> | string): Promise<void> {
  try {
    const chunks: Buffer[] = [];
    for await (const chunk of process.stdin) chunks.push(chunk as Buffer);
    const text = Buffer.concat(chunks).toString("utf8").trim();
    const args = text ? (JSON.parse(text) as Record<string, unknown>) : {};
    const out = await body(args);
    process.stdout.write(out.endsWith("\n") || out === "" ? out : `${out}\n`);
  } catch (error) {
    const message =
      error instanceof ToolError ? error.message : `unexpected failure: ${(error as Error).stack ?? error}`;
    process.stderr.write(`${message}\n`);
    process.exitCode = 1;
  }
}

export function stringArg(args: Record<string, unknown>, name: string, required: true): string;
export function stringArg(args: Record<string, unknown>, name: string, required?: false): string | undefined;
export function stringArg(args: Record<string, unknown>, name: string, required = false): string | undefined {
  const value = args[name];
  if (value === undefined || value === null) {
    if (required) throw new ToolError(`missing argument '${name}'`);
    return undefined;
  }
  if (typeof value !== "string") throw new ToolError(`argument '${name}' must be a string`);
  return value;
}

export function numberArg(args: Record<string, unknown>, name: string, fallback: number): number {
  const value = args[name];
  if (value === undefined || value === null) return fallback;
  const n = typeof value === "string" ? Number(value) : value;
  if (typeof n !== "number" || !Number.isInteger(n) || n < 0)
    throw new ToolError(`argument '${name}' must be a whole number`);
  return n;
}

/** A path argument, resolved against the working directory. */
export function pathArg(args: Record<string, unknown>, name = "path", required = true): string {
  const value = required ? stringArg(args, name, true) : (stringArg(args, name) ?? ".");
  if (value === "") throw new ToolError(`argument '${name}' is empty`);
  return resolve(process.cwd(), value);
}

/** A Node error about a file, worded for the model. */
export function fileProblem(error: unknown, path: string): ToolError {
  const code = (error as NodeJS.ErrnoException).code;
  if (code === "ENOENT") return new ToolError(`${path}: no such file or directory`);
  if (code === "EISDIR") return new ToolError(`${path} is a directory`);
  if (code === "EACCES" || code === "EPERM")
    return new ToolError(`${path}: permission denied (outside the sandbox?)`);
  return new ToolError(`${path}: ${(error as Error).message}`);
}
