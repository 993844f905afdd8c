import { type FileHandlers, file } from "@ollie/virtfs";
import { parseTopicFilter, type Subscription } from "../session/event-bus.js";
import type { Session } from "../session/session.js";
import { failWith } from "./fail.js";

interface EventsState {
  subscription: Subscription;
  /** What the last event lines left unread (a read smaller than a line). */
  pending: Buffer;
}

/**
 * `session/ID/events`: the session's events from the moment of the open, one JSON line each, as they happen
 * (a read waits for the next); after `session.kill`, the end of the file. A write on the same open (ORDWR)
 * sets the topic filter — patterns such as `agent.*.state` or `*.tool` — which also drops what waits and does
 * not pass it; each write replaces the last. Offsets are ignored: an open is a stream.
 */
export function eventsFile(session: Session, group: string) {
  const handlers: FileHandlers<EventsState> = {
    open: () => ({ subscription: session.events.subscribe(), pending: Buffer.alloc(0) }),
    write({ state, data }) {
      try {
        state.subscription.setFilter(parseTopicFilter(data.toString("utf8")));
      } catch (error) {
        failWith(error);
      }
      return data.length;
    },
    async read({ state, count, signal }) {
      if (state.pending.length === 0) {
        const next = await state.subscription.next(signal);
        if (next === undefined) return "";
        state.pending = Buffer.from(next);
      }
      const out = state.pending.subarray(0, count);
      state.pending = state.pending.subarray(out.length);
      return out;
    },
    close({ state }) {
      state.subscription.close();
    },
  };
  return file("events", handlers, { mode: 0o666, group });
}
