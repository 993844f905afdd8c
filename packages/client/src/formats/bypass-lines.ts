import { ReplyFormatError } from "../errors.js";

/**
 * A bypass request waiting for the owner's decision (a line of `bypass/pending`). What an agent wrote —
 * the command, the reason — comes as the file has it, tabs, newlines and control characters escaped
 * (`\t`, `\n`, `\xNN`): safe to show as it is.
 */
export interface PendingBypass {
  number: number;
  /** The asking agent's uname. */
  agent: string;
  operation: string;
  command: string;
  reason: string;
}

/** An operation the bypass policy offers (a line of `bypass/operations`). */
export interface BypassOperation {
  name: string;
  /** Whether the owner must approve it (`required`), or the policy allows it (`none`). */
  approval: "required" | "none";
  timeoutSeconds: number;
  command: string;
}

const lines = (text: string) => text.split("\n").filter((line) => line !== "");

export function parsePending(text: string, path: string): PendingBypass[] {
  return lines(text).map((line) => {
    const [number, agent, operation, command, reason] = line.split("\t");
    if (reason === undefined || !/^[1-9]\d*$/.test(number ?? ""))
      throw new ReplyFormatError(path, line, "not a pending request's line");
    return { number: Number(number), agent: agent!, operation: operation!, command: command!, reason };
  });
}

export function parseOperations(text: string, path: string): BypassOperation[] {
  return lines(text).map((line) => {
    const [name = "", approval, timeout, ...command] = line.split("\t");
    if ((approval !== "required" && approval !== "none") || Number.isNaN(Number(timeout)))
      throw new ReplyFormatError(path, line, "not an operation's line");
    return { name, approval, timeoutSeconds: Number(timeout), command: command.join("\t") };
  });
}
