import { numberArg, pathArg, stringArg, ToolError, tool } from "../tool-io.js";
import { askBroker } from "./broker-client.js";
import type { BrokerRequest } from "./broker-protocol.js";

function optionalNumber(args: Record<string, unknown>, name: string): number | undefined {
  return args[name] === undefined || args[name] === null ? undefined : numberArg(args, name, 0);
}

function booleanArg(args: Record<string, unknown>, name: string): boolean {
  const value = args[name];
  if (value === undefined || value === null) return false;
  if (typeof value !== "boolean") throw new ToolError(`argument '${name}' must be true or false`);
  return value;
}

/** The broker request a tool's arguments make. */
export function requestOf(op: BrokerRequest["op"], args: Record<string, unknown>): BrokerRequest {
  const needsPath = op !== "symbols";
  const path = needsPath || args.path !== undefined ? pathArg(args, "path") : undefined;
  const req: BrokerRequest = { op, cwd: process.cwd(), searchPath: process.env.PATH ?? "" };
  const fields: Partial<BrokerRequest> = {
    path,
    line: optionalNumber(args, "line"),
    column: optionalNumber(args, "column"),
    symbol: stringArg(args, "symbol"),
    query: stringArg(args, "query"),
    newName: stringArg(args, "new_name"),
    apply: booleanArg(args, "apply"),
    limit: optionalNumber(args, "limit"),
  };
  for (const [key, value] of Object.entries(fields))
    if (value !== undefined) (req as unknown as Record<string, unknown>)[key] = value;
  if (op === "rename" && !req.newName) throw new ToolError("missing argument 'new_name'");
  return req;
}

/** Runs an lsp_* tool: its arguments become one request to the agent's broker, whose answer it prints. */
export function lspTool(op: BrokerRequest["op"]): Promise<void> {
  return tool((args) => askBroker(requestOf(op, args)));
}
