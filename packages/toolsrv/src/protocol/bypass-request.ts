/** A request as filed: its command is always there (the operation's own when the request gave none). */
export interface BypassRequestDetails {
  operation: string;
  argv: string[];
  cwd: string;
  reason: string;
}

/** A request as `bypass/requests/ID/request` describes it. */
export interface BypassRequestInfo extends BypassRequestDetails {
  id: number;
  agent: string;
  /** When it was filed, as an ISO 8601 time. */
  filed: string;
}

/** A line of `bypass/pending` (its fields as toolsrv wrote them: control characters escaped). */
export interface PendingBypass {
  id: number;
  agent: string;
  operation: string;
  command: string;
  reason: string;
}

/** Reads `bypass/pending` (or what `bypass/wait` returned): id, agent, operation, command, reason. */
export function parsePending(text: string): PendingBypass[] {
  return text
    .split("\n")
    .filter((line) => line !== "")
    .map((line) => {
      const [id = "", agent = "", operation = "", command = "", reason = ""] = line.split("\t");
      return { id: Number(id), agent, operation, command, reason };
    })
    .filter((p) => Number.isInteger(p.id) && p.id > 0);
}
