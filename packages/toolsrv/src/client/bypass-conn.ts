import { type Authenticator, type Fsys, ORDWR } from "@ollie/ninep";
import type { BypassFiling } from "../protocol/bypass-filing.js";
import { type BypassRequestInfo, type PendingBypass, parsePending } from "../protocol/bypass-request.js";
import { ToolsrvLink } from "./toolsrv-link.js";

export interface BypassConnOptions {
  /** toolsrv's address, e.g. `unix!/run/user/1000/ns/toolsrv`. */
  address: string;
  /**
   * Who attaches: an agent files requests as itself; the owner (toolsrv's `--owner`) follows `pending` and
   * decides.
   */
  uname: string;
  authenticator?: Authenticator;
}

/**
 * A connection to toolsrv's bypass broker (`bypass/` in its namespace): an agent files requests with it; the
 * owner follows what is pending and decides — toolsrv takes a decision only from its owner, who must prove
 * the owner's key when toolsrv has one (`--owner-key`).
 */
export class BypassConn {
  /** The attached namespace, for reading a request's other files. */
  readonly fsys: Fsys;

  private constructor(private readonly link: ToolsrvLink) {
    this.fsys = link.fsys;
  }

  static async dial(options: BypassConnOptions, signal?: AbortSignal): Promise<BypassConn> {
    return new BypassConn(await ToolsrvLink.dial(options, signal));
  }

  /** Files a request as the attached uname; resolves with its id. */
  async file(request: BypassFiling, signal?: AbortSignal): Promise<number> {
    return this.fsys.withFile(
      "bypass/new",
      ORDWR,
      async (f) => {
        await f.write(JSON.stringify(request), 0, signal);
        return Number((await f.read(0, undefined, signal)).toString("utf8").trim());
      },
      signal,
    );
  }

  /** The policy's operations, as `bypass/operations` lists them. */
  async operations(signal?: AbortSignal): Promise<string> {
    return this.text("bypass/operations", signal);
  }

  /** The requests waiting for the owner (the owner's alone). */
  async pending(signal?: AbortSignal): Promise<PendingBypass[]> {
    return parsePending(await this.text("bypass/pending", signal));
  }

  /**
   * The pending requests now, then again each time they change, until `signal` aborts (the owner's alone).
   * The wait file is opened before the list is read, so no change between the two is missed.
   */
  async *follow(signal: AbortSignal): AsyncGenerator<PendingBypass[]> {
    const wait = await this.fsys.open("bypass/wait", undefined, signal);
    try {
      yield await this.pending(signal);
      for (;;) yield parsePending((await wait.readAll(0, { signal })).toString("utf8"));
    } finally {
      await wait.close().catch(() => {});
    }
  }

  async request(id: number, signal?: AbortSignal): Promise<BypassRequestInfo> {
    return JSON.parse(await this.text(`bypass/requests/${id}/request`, signal)) as BypassRequestInfo;
  }

  /** `pending`, `approved by UNAME`, `allowed by the policy`, `denied: …` or `denied by UNAME[: REASON]`. */
  async decision(id: number, signal?: AbortSignal): Promise<string> {
    return (await this.text(`bypass/requests/${id}/decision`, signal)).trim();
  }

  /** `pending`, `running`, `exited N`, `killed by SIGNAL`, `timed out`, or the denial. */
  async status(id: number, signal?: AbortSignal): Promise<string> {
    return (await this.text(`bypass/requests/${id}/status`, signal)).trim();
  }

  /** The owner's decision: approve, or deny saying why. */
  async decide(id: number, decision: "approve" | "deny", reason = ""): Promise<void> {
    const why = reason.replace(/\s+/g, " ").trim();
    const ctl = `bypass/requests/${id}/ctl`;
    try {
      await this.fsys.writeFile(ctl, decision === "deny" && why ? `deny ${why}\n` : `${decision}\n`);
    } catch (error) {
      // toolsrv's refusal, without the file and command it names (the caller knows what it asked).
      const message = (error as Error).message;
      throw new Error(
        message.startsWith(`${ctl}: ${decision}: `)
          ? message.slice(ctl.length + decision.length + 4)
          : message,
      );
    }
  }

  async close(): Promise<void> {
    await this.link.close();
  }

  private async text(path: string, signal?: AbortSignal): Promise<string> {
    return (await this.fsys.readFile(path, signal)).toString("utf8");
  }
}
