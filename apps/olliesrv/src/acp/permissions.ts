import type {
  PermissionOption,
  RequestPermissionRequest,
  RequestPermissionResponse,
} from "@agentclientprotocol/sdk";
import type { OllieClient, PendingBypass, Watch } from "@ollie/client";
import type { ToolTracker } from "./tool-tracker.js";

/** How the editor is asked. */
export type AskPermission = (request: RequestPermissionRequest) => Promise<RequestPermissionResponse>;

const ALLOW_ONCE = "allow-once";
const ALLOW_ALWAYS = "allow-always";
const REJECT = "reject";

/**
 * A session's bypass requests — its agents asking to run an operation outside the sandbox — asked of the
 * editor with session/request_permission as they are filed, one at a time in order: allow once, allow
 * always (every later request of the same operation from this session, for as long as this connection
 * lasts, is approved without asking) or reject; a cancelled question is a rejection. A request decided
 * elsewhere meanwhile (`ollie approve`) is left as it was decided. Following the pending list is the
 * owner's alone: for anyone else `open` resolves to undefined and the requests wait for the owner.
 */
export class SessionPermissions {
  private readonly watching = new AbortController();
  private readonly asked = new Set<number>();
  private readonly always = new Set<string>();
  private looking: Promise<void> = Promise.resolve();
  private followed: Promise<void> = Promise.resolve();

  private constructor(
    private readonly client: OllieClient,
    private readonly sessionId: string,
    private readonly tools: ToolTracker,
    private readonly ask: AskPermission,
  ) {}

  static async open(
    client: OllieClient,
    sessionId: string,
    tools: ToolTracker,
    ask: AskPermission,
  ): Promise<SessionPermissions | undefined> {
    const permissions = new SessionPermissions(client, sessionId, tools, ask);
    const changes = await client.bypass
      .watchPending({ signal: permissions.watching.signal })
      .catch(() => undefined);
    if (!changes) return undefined;
    permissions.follow(changes);
    return permissions;
  }

  async close(): Promise<void> {
    this.watching.abort();
    await this.followed;
    await this.looking;
  }

  private follow(changes: Watch<PendingBypass[]>): void {
    this.followed = (async () => {
      this.look(await this.client.bypass.pending(this.watching.signal));
      for (;;) this.look(await changes.next());
    })()
      .catch(() => {})
      .finally(() => changes.close().catch(() => {}));
  }

  private look(pending: PendingBypass[]): void {
    for (const request of pending) {
      if (this.asked.has(request.number) || !request.agent.startsWith(`${this.sessionId}.`)) continue;
      this.asked.add(request.number);
      this.looking = this.looking.then(() => this.decide(request)).catch(() => {});
    }
  }

  private async decide(request: PendingBypass): Promise<void> {
    const handle = this.client.bypass.request(request.number);
    const signal = this.watching.signal;
    if (this.always.has(request.operation)) return handle.approve({ signal });
    const call = this.tools.latest("bypass_request");
    const options: PermissionOption[] = [
      { optionId: ALLOW_ONCE, name: "Allow once", kind: "allow_once" },
      {
        optionId: ALLOW_ALWAYS,
        name: `Always allow ${request.operation} in this session`,
        kind: "allow_always",
      },
      { optionId: REJECT, name: "Reject", kind: "reject_once" },
    ];
    const answer = await this.ask({
      sessionId: this.sessionId,
      toolCall: {
        toolCallId: call?.id ?? `bypass-${request.number}`,
        title: `run ${request.operation} outside the sandbox: ${request.command}`,
        kind: "execute",
        rawInput: { operation: request.operation, command: request.command, reason: request.reason },
      },
      options,
    }).catch(() => undefined);
    const chosen = answer?.outcome.outcome === "selected" ? answer.outcome.optionId : undefined;
    // Decided elsewhere meanwhile: the decision stands, and this one is refused.
    if (chosen === ALLOW_ONCE || chosen === ALLOW_ALWAYS) {
      if (chosen === ALLOW_ALWAYS) this.always.add(request.operation);
      await handle.approve({ signal });
    } else
      await handle.deny(chosen === REJECT ? "rejected in the editor" : "the editor cancelled the question", {
        signal,
      });
  }
}
