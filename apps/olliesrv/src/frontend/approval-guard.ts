import type { OllieClient, PendingBypass } from "@ollie/client";

/** Denies a run's approvals as they come; `recheck()` looks again once more agents count as the run's. */
export interface ApprovalGuard {
  recheck(): void;
  stop(): Promise<void>;
}

/**
 * Denies at once every bypass request of the agents `ours` says belong to a run — those waiting now and
 * those filed from now on — telling each agent `reason`, and tells `denied` of each. A request decided
 * meanwhile (by the owner elsewhere) is left as it is. Following the pending list is the owner's alone:
 * for anyone else this rejects with the RefusedError olliesrv answered.
 */
export async function denyApprovals(
  client: OllieClient,
  ours: (agent: string) => boolean,
  reason: string,
  denied: (request: PendingBypass) => void,
): Promise<ApprovalGuard> {
  const watching = new AbortController();
  const changes = await client.bypass.watchPending({ signal: watching.signal });
  const decided = new Set<number>();
  // One look at a time, in order: a request is denied once, and told of once.
  let looking = Promise.resolve();
  const look = (list?: PendingBypass[]) => {
    looking = looking.then(async () => {
      for (const request of list ?? (await client.bypass.pending(watching.signal))) {
        if (decided.has(request.number) || !ours(request.agent)) continue;
        decided.add(request.number);
        const refused = await client.bypass
          .request(request.number)
          .deny(reason, { signal: watching.signal })
          .then(
            () => false,
            () => true,
          );
        if (!refused) denied(request);
      }
    });
    looking = looking.catch(() => {});
    return looking;
  };
  // It ends when stopped, or with the connection: either way there is nothing more to deny.
  const watched = (async () => {
    await look();
    for (;;) await look(await changes.next());
  })().catch(() => {});
  return {
    recheck: () => void look(),
    stop: async () => {
      watching.abort();
      await watched;
      await looking;
      await changes.close();
    },
  };
}
