import type { OllieClient, PendingBypass } from "@ollie/client";
import { APPROVALS_ID, approvalsList } from "../html/approvals-page.js";
import type { PageOp } from "./page-ops.js";

/**
 * The pending bypass requests, followed with blocking reads of `bypass/wait`: every page shows how many wait
 * and notifies of a new one; the approvals page shows them all.
 */
export async function followApprovals(
  client: OllieClient,
  signal: AbortSignal,
  send: (ops: PageOp[]) => void,
  page: { formToken: string; showList: boolean },
): Promise<void> {
  const changes = await client.bypass.watchPending({ signal });
  try {
    let known = new Set<number>();
    const show = (pending: PendingBypass[], first: boolean) => {
      const ops: PageOp[] = [
        { op: "text", id: "approval-count", text: pending.length > 0 ? `(${pending.length})` : "" },
      ];
      if (page.showList)
        ops.push({ op: "html", id: APPROVALS_ID, html: approvalsList(pending, page.formToken).text });
      for (const p of pending) {
        if (first || known.has(p.number)) continue;
        const text = `${p.agent} asks to run ${p.operation}: ${p.command}`;
        ops.push({ op: "notify", title: `Approval ${p.number} waits`, body: text, url: "/approvals" });
        ops.push({ op: "announce", text: `Request ${p.number}: ${text}` });
      }
      known = new Set(pending.map((p) => p.number));
      send(ops);
    };
    show(await client.bypass.pending(signal), true);
    for (;;) show(await changes.next(), false);
  } finally {
    await changes.close();
  }
}
