import { describeIssues, formatProblems } from "@ollie/config-file";
import { AppendBuffer, WatchedValue } from "@ollie/virtfs";
import { execa } from "execa";
import { bypassFilingSchema } from "../protocol/bypass-filing.js";
import type { BypassRequestDetails } from "../protocol/bypass-request.js";
import { type BypassOperation, type BypassPolicy, operationFor, operationNamed } from "./bypass-policy.js";
import { oneLine } from "./one-line.js";

/** One request to run something outside the sandbox. */
export interface BypassRequest {
  readonly id: number;
  readonly uname: string;
  readonly spec: BypassRequestDetails;
  readonly filed: Date;
  /** `pending`, `denied: …`, `denied by UNAME[: REASON]`, `running`, `exited N`, `killed by SIGNAL`, `timed out`. */
  readonly status: WatchedValue<string>;
  /**
   * How it was decided: `pending`, then `approved by UNAME`, `allowed by the policy`, `denied: …` (the policy)
   * or `denied by UNAME[: REASON]`.
   */
  readonly decision: WatchedValue<string>;
  readonly output: AppendBuffer;
}

/** The longest reason a denial keeps. */
const MAX_REASON = 500;

/**
 * The only way anything runs outside the sandbox. A request must name an operation of the bypass policy and
 * start with its command; an operation that requires approval waits until the owner approves or denies it
 * through its ctl file (agents cannot write it). Every request, decision and run is logged.
 */
export class BypassBroker {
  readonly log = new AppendBuffer({ retain: 256 * 1024 });
  /** The requests waiting for the owner, as the `pending` file shows them: a change wakes `bypass/wait`. */
  readonly pending = new WatchedValue("");
  private readonly requests = new Map<number, BypassRequest>();
  private nextId = 1;

  constructor(
    private readonly policy: BypassPolicy,
    private readonly onLog: (line: string) => void = () => {},
  ) {}

  list(): BypassRequest[] {
    return [...this.requests.values()];
  }

  get(id: number): BypassRequest | undefined {
    return this.requests.get(id);
  }

  /** Files a request; returns its id. A request the policy does not allow is denied at once. */
  request(uname: string, raw: unknown): number {
    const parsed = bypassFilingSchema.safeParse(raw);
    if (!parsed.success) {
      throw new Error(
        `bad bypass request: ${formatProblems(undefined, describeIssues(bypassFilingSchema, parsed.error.issues))}`,
      );
    }
    const { argv, ...rest } = parsed.data;
    const spec: BypassRequestDetails = {
      ...rest,
      argv: argv ?? operationNamed(this.policy, rest.operation)?.argv ?? [],
    };
    const r: BypassRequest = {
      id: this.nextId++,
      uname,
      spec,
      filed: new Date(),
      status: new WatchedValue("pending"),
      decision: new WatchedValue("pending"),
      output: new AppendBuffer({ retain: 256 * 1024 }),
    };
    this.requests.set(r.id, r);
    this.note(
      r,
      `requested ${spec.operation}: ${oneLine(spec.argv.join(" "))}${spec.reason ? ` (${oneLine(spec.reason)})` : ""}`,
    );
    const op = operationFor(this.policy, spec.operation, spec.argv);
    if (!op) {
      const why = operationNamed(this.policy, spec.operation)
        ? "the bypass policy does not allow this command"
        : `the bypass policy has no operation ${spec.operation}`;
      r.decision.set(`denied: ${why}`);
      this.finish(r, `denied: ${why}`);
    } else if (op.approval === "none") {
      r.decision.set("allowed by the policy");
      void this.run(r, op, "allowed without approval by the policy");
    }
    this.showPending();
    return r.id;
  }

  /** The owner's decision on a pending request; a denial may say why. */
  decide(id: number, decision: "approve" | "deny", by: string, reason = ""): void {
    const r = this.requests.get(id);
    if (!r) throw new Error(`no bypass request ${id}`);
    if (r.status.get() !== "pending")
      throw new Error(`bypass request ${id} is not pending: ${r.status.get()}`);
    if (decision === "deny") {
      const why = oneLine(reason.trim()).slice(0, MAX_REASON);
      const denied = `denied by ${by}${why ? `: ${why}` : ""}`;
      r.decision.set(denied);
      this.finish(r, denied);
    } else {
      r.decision.set(`approved by ${by}`);
      // Only requests the policy allowed are left pending, and the policy does not change.
      void this.run(r, operationFor(this.policy, r.spec.operation, r.spec.argv)!, `approved by ${by}`);
    }
    this.showPending();
  }

  /** The operations the policy offers, one line each: name, approval, timeout in seconds, command. */
  operations(): string {
    return this.policy.operations
      .map((o) => `${o.name}\t${o.approval}\t${o.timeout}\t${o.argv.join(" ")}\n`)
      .join("");
  }

  /**
   * The pending requests, one line each, tab-separated: id, agent, operation, command, reason (control
   * characters escaped, so a line is a request).
   */
  pendingText(): string {
    return [...this.requests.values()]
      .filter((r) => r.decision.get() === "pending")
      .map((r) =>
        [r.id, r.uname, r.spec.operation, r.spec.argv.join(" "), r.spec.reason].map(oneLine).join("\t"),
      )
      .map((line) => `${line}\n`)
      .join("");
  }

  private showPending(): void {
    this.pending.set(this.pendingText());
  }

  private async run(r: BypassRequest, op: BypassOperation, why: string): Promise<void> {
    this.note(r, why);
    r.status.set("running");
    const child = execa(r.spec.argv[0]!, r.spec.argv.slice(1), {
      cwd: r.spec.cwd,
      env: { PATH: process.env.PATH ?? "/usr/bin:/bin" },
      extendEnv: false,
      detached: true,
      reject: false,
      buffer: false,
      stdin: "ignore",
      timeout: op.timeout * 1000,
      killSignal: "SIGKILL",
    });
    child.stdout?.on("data", (chunk: Buffer) => r.output.append(chunk));
    child.stderr?.on("data", (chunk: Buffer) => r.output.append(chunk));
    const result = await child;
    const status = result.timedOut
      ? "timed out"
      : result.exitCode === undefined
        ? `killed by ${result.signal}`
        : `exited ${result.exitCode}`;
    this.finish(r, status);
  }

  private finish(r: BypassRequest, status: string): void {
    r.status.set(status);
    if (!r.output.closed) r.output.close();
    this.note(r, status);
  }

  private note(r: BypassRequest, what: string): void {
    const line = `${new Date().toISOString()} bypass ${r.id} (${r.uname}): ${what}\n`;
    this.log.append(line);
    this.onLog(line);
  }
}
