import type { OllieClient, SessionEntry } from "@ollie/client";
import { sessionRows, sessionRowsId } from "../html/session-rows.js";
import { Coalesce } from "./coalesce.js";
import type { PageOp } from "./page-ops.js";
import { matches, readSessionView, type SessionFilter } from "./session-view.js";

/** The fewest milliseconds between two re-reads of one session's rows. */
const ROW_EVERY_MS = 250;

/** The events that change what a session's rows show (not the text as it streams). */
const ROW_TOPICS = ["agent.*.state", "agent.*.turn", "agent.*.usage", "agent.*.error", "session.*"];

interface Followed {
  entry: SessionEntry;
  stop: AbortController;
  shown: boolean;
}

/**
 * The sessions page's table, live: the session list followed with blocking reads of `session/idxwait`, and
 * each session's events (its agents' states, turns and spending, the session's own changes); each change has
 * the session's rows read again — at most four times a second each — and sent whole.
 */
export async function followSessions(
  client: OllieClient,
  signal: AbortSignal,
  send: (ops: PageOp[]) => void,
  page: { formToken: string; filter: SessionFilter },
): Promise<void> {
  const changes = await client.watchSessions({ signal });
  const coalesce = new Coalesce(ROW_EVERY_MS);
  const followed = new Map<string, Followed>();

  const showRows = async (id: string) => {
    const f = followed.get(id);
    if (!f) return;
    const view = await readSessionView(client, f.entry);
    if (followed.get(id) !== f) return;
    const shown = matches(view, page.filter);
    if (shown)
      send([
        {
          op: "upsert",
          id: sessionRowsId(id),
          parent: "sessions",
          html: sessionRows(view, page.formToken).text,
        },
      ]);
    else if (f.shown) send([{ op: "remove", id: sessionRowsId(id) }]);
    if (shown !== f.shown) {
      f.shown = shown;
      sendCount();
    }
  };
  const sendCount = () =>
    send([
      { op: "text", id: "session-count", text: String([...followed.values()].filter((f) => f.shown).length) },
    ]);

  const follow = async (f: Followed, id: string) => {
    try {
      const events = await client.session(id).events({ topics: ROW_TOPICS, signal: f.stop.signal });
      coalesce.schedule(id, () => showRows(id));
      for await (const _ of events) coalesce.schedule(id, () => showRows(id));
    } catch {
      // The session ended, or the page went: the session list says which.
    }
  };

  const apply = async (list: SessionEntry[], first: boolean) => {
    const ids = new Set(list.map((s) => s.id));
    for (const [id, f] of followed)
      if (!ids.has(id)) {
        f.stop.abort();
        followed.delete(id);
        send([{ op: "remove", id: sessionRowsId(id) }]);
      }
    for (const entry of list) {
      const f = followed.get(entry.id);
      if (f) {
        if (f.entry.name !== entry.name || f.entry.cwd !== entry.cwd || f.entry.state !== entry.state) {
          f.entry = entry;
          coalesce.schedule(entry.id, () => showRows(entry.id));
        }
        continue;
      }
      // A fresh stream's page may show a row the filter no longer lets through: taken as shown, it goes.
      const fresh: Followed = { entry, stop: new AbortController(), shown: first };
      followed.set(entry.id, fresh);
      // Its rows are read once its events are followed (see follow): no change in between is missed.
      void follow(fresh, entry.id);
    }
    // A fresh stream says which rows are left: the page may hold some of a session gone since it was made.
    if (first) send([{ op: "only", parent: "sessions", ids: [...ids].map(sessionRowsId) }]);
    sendCount();
  };

  try {
    await apply(await client.sessions(signal), true);
    for (;;) await apply(await changes.next(), false);
  } finally {
    coalesce.close();
    for (const f of followed.values()) f.stop.abort();
    await changes.close();
  }
}
