import { LogStream, WatchedValue } from "@ollie/virtfs";
import { execa } from "execa";
import { z } from "zod";
import { type BypassOperation, type BypassPolicy, operationFor } from "./bypass-policy.js";

const requestSchema = z.strictObject({
  operation: z.string().min(1),
  argv: z.array(z.string()).min(1),
  cwd: z.string().startsWith("/", "cwd must be an absolute path"),
  reason: z.string().default(""),
});

export type BypassRequestSpec = z.input<typeof requestSchema>;

/** One request to run something outside the sandbox. */
export interface BypassRequest {
  readonly id: number;
  readonly uname: string;
  readonly spec: z.output<typeof requestSchema>;
  /** `pending`, `denied: …`, `running`, `exited N`, `killed by SIGNAL`, `timed out`. */
  readonly status: WatchedValue<string>;
  readonly output: LogStream;
}

/**
 * The only way anything runs outside the sandbox. A request must name an operation of the bypass policy and
 * start with its command; an operation that requires approval waits until the owner approves or denies it
 * through its ctl file (agents cannot write it). Every request, decision and run is logged.
 */
export class BypassBroker {
  readonly log = new LogStream({ retain: 256 * 1024 });
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
    const parsed = requestSchema.safeParse(raw);
    if (!parsed.success) {
      const issue = parsed.error.issues[0]!;
      throw new Error(`bad bypass request: ${issue.path.join(".") || "the request"}: ${issue.message}`);
    }
    const spec = parsed.data;
    const r: BypassRequest = {
      id: this.nextId++,
      uname,
      spec,
      status: new WatchedValue("pending"),
      output: new LogStream({ retain: 256 * 1024 }),
    };
    this.requests.set(r.id, r);
    this.note(
      r,
      `requested ${spec.operation}: ${spec.argv.join(" ")}${spec.reason ? ` (${spec.reason})` : ""}`,
    );
    const op = operationFor(this.policy, spec.operation, spec.argv);
    if (!op) {
      this.finish(r, "denied: the bypass policy does not allow this command");
    } else if (op.approval === "none") {
      void this.run(r, op, "allowed without approval by the policy");
    }
    return r.id;
  }

  /** The owner's decision on a pending request. */
  decide(id: number, decision: "approve" | "deny", by: string): void {
    const r = this.requests.get(id);
    if (!r) throw new Error(`no bypass request ${id}`);
    if (r.status.get() !== "pending")
      throw new Error(`bypass request ${id} is not pending: ${r.status.get()}`);
    if (decision === "deny") {
      this.finish(r, `denied by ${by}`);
      return;
    }
    // Only requests the policy allowed are left pending, and the policy does not change.
    void this.run(r, operationFor(this.policy, r.spec.operation, r.spec.argv)!, `approved by ${by}`);
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
