import {
  type BypassOperation,
  type PendingBypass,
  parseOperations,
  parsePending,
} from "../formats/bypass-lines.js";
import type { NamespaceFiles } from "../namespace/files.js";
import { BYPASS_OPERATIONS, BYPASS_PENDING, BYPASS_WAIT, bypassFile } from "../namespace/paths.js";
import { Watch } from "../streams/watch.js";

const oneLine = (text: string) => text.trim();

/**
 * The requests of agents to run something outside the sandbox (`bypass/`): what waits for the owner, and
 * the owner's decisions. The pending list and the decisions are the owner's alone.
 */
export class Bypass {
  /** @internal Made by the client. */
  constructor(private readonly files: NamespaceFiles) {}

  /** The requests waiting for a decision. */
  async pending(signal?: AbortSignal): Promise<PendingBypass[]> {
    return parsePending(await this.files.read(BYPASS_PENDING, signal), BYPASS_PENDING);
  }

  /** Follows the pending list (`bypass/wait`): the whole list at each change from the moment this resolves. */
  watchPending(options: { signal?: AbortSignal } = {}): Promise<Watch<PendingBypass[]>> {
    return Watch.open(this.files, BYPASS_WAIT, (text) => parsePending(text, BYPASS_WAIT), options.signal);
  }

  /** What the bypass policy offers. */
  async operations(signal?: AbortSignal): Promise<BypassOperation[]> {
    return parseOperations(await this.files.read(BYPASS_OPERATIONS, signal), BYPASS_OPERATIONS);
  }

  /** Request `n` (a handle: making one reads nothing). */
  request(n: number): BypassRequest {
    bypassFile(n, "ctl");
    return new BypassRequest(this.files, n);
  }
}

/** One bypass request (`bypass/N/`). */
export class BypassRequest {
  /** @internal Made by `Bypass.request`. */
  constructor(
    private readonly files: NamespaceFiles,
    readonly number: number,
  ) {}

  /**
   * The decision: `pending`, `approved by UNAME`, `allowed by the policy`, `denied: …` (by the policy) or
   * `denied by UNAME[: REASON]`.
   */
  async decision(signal?: AbortSignal): Promise<string> {
    return oneLine(await this.files.read(bypassFile(this.number, "decision"), signal));
  }

  /** Follows the decision (`decisionwait`) from the moment this resolves. */
  watchDecision(options: { signal?: AbortSignal } = {}): Promise<Watch<string>> {
    return Watch.open(this.files, bypassFile(this.number, "decisionwait"), oneLine, options.signal);
  }

  /** `pending`, `running`, `exited N`, `killed by SIGNAL`, `timed out`, or the denial. */
  async status(signal?: AbortSignal): Promise<string> {
    return oneLine(await this.files.read(bypassFile(this.number, "status"), signal));
  }

  /** Follows the status (`statuswait`) from the moment this resolves. */
  watchStatus(options: { signal?: AbortSignal } = {}): Promise<Watch<string>> {
    return Watch.open(this.files, bypassFile(this.number, "statuswait"), oneLine, options.signal);
  }

  /** Lets it run (outside the sandbox, as the owner, in its session's directory). */
  async approve(options: { signal?: AbortSignal } = {}): Promise<void> {
    await this.files.write(bypassFile(this.number, "ctl"), "approve\n", options.signal);
  }

  /** Refuses it, telling the agent why when `reason` is given (one line). */
  async deny(reason = "", options: { signal?: AbortSignal } = {}): Promise<void> {
    if (/[\n\r]/.test(reason)) throw new TypeError("a reason for a denial is one line");
    const line = reason.trim() === "" ? "deny" : `deny ${reason.trim()}`;
    await this.files.write(bypassFile(this.number, "ctl"), `${line}\n`, options.signal);
  }
}
