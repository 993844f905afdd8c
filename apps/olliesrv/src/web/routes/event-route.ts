import type { Context } from "hono";
import { streamSSE } from "hono/streaming";
import { DaemonDownError } from "../daemon-link.js";
import { parseEventId, type StreamMessage } from "../live/browser-stream.js";
import { filterFrom } from "../live/session-view.js";
import type { FedStream, StreamView } from "../live/streams.js";
import type { WebContext } from "./web-context.js";

/** A comment line this often keeps proxies and the browser from taking a quiet stream for a dead one. */
const KEEPALIVE_MS = 20_000;
/** A browser this far behind is cut off; it comes back with Last-Event-ID and is given what it missed. */
const MOST_UNSENT = 1024;

/**
 * `GET /events?page=…`: a page's live stream (server-sent events). A browser coming back sends
 * `Last-Event-ID`: when its stream is still kept it goes on where it stopped; otherwise a fresh stream begins
 * with everything the page shows, sent anew.
 */
export async function eventRoute(c: Context, web: WebContext): Promise<Response> {
  // A stream has no head: HEAD would run it with nobody to read it, and never end.
  if (c.req.method !== "GET") return c.text("GET only\n", 405);
  // EventSource sends the header when it reconnects by itself; a page taking its stream up again (shown
  // after being hidden) names it in the address.
  const lastId = c.req.header("last-event-id") ?? c.req.query("resume");
  const resumed = parseEventId(lastId);
  const kept = resumed && web.streams.find(resumed.stream);
  let stream: FedStream;
  let after = 0;
  if (kept && resumed && kept.stream.holds(resumed.seq)) {
    stream = kept;
    after = resumed.seq;
  } else {
    let view: StreamView | undefined;
    try {
      view = await viewOf(c, web, lastId !== undefined);
    } catch (error) {
      // The page's script reloads the page, which says olliesrv does not answer and tries again.
      if (error instanceof DaemonDownError) return c.text(`${error.message}\n`, 503);
      throw error;
    }
    if (!view) return c.text("no such page\n", 404);
    const opened = web.streams.open(view);
    if (!opened) return c.text("too many pages are open on this ollie web\n", 503);
    stream = opened;
  }
  c.header("Cache-Control", "no-store");
  c.header("X-Accel-Buffering", "no");
  return streamSSE(c, async (sse) => {
    let unsent = 0;
    let writing = Promise.resolve();
    let done: () => void = () => {};
    const finished = new Promise<void>((resolve) => {
      done = resolve;
    });
    const sink = (message: StreamMessage) => {
      if (++unsent > MOST_UNSENT) return done();
      writing = writing
        .then(() =>
          sse.writeSSE({ event: message.event, id: stream.stream.eventId(message), data: message.data }),
        )
        .then(() => {
          unsent--;
        }, done);
    };
    sse.onAbort(done);
    stream.stream.attach(sink, after, done);
    stream.joined();
    const keepalive = setInterval(() => {
      writing = writing.then(() => sse.write(": ping\n\n")).then(() => undefined, done);
    }, KEEPALIVE_MS);
    await finished;
    clearInterval(keepalive);
    if (stream.stream.detach(sink)) web.streams.left(stream);
  });
}

/** What the page asks to follow; undefined for what is not a page. */
async function viewOf(c: Context, web: WebContext, afresh: boolean): Promise<StreamView | undefined> {
  const params = new URL(c.req.url).searchParams;
  const page = params.get("page");
  if (page === "sessions") return { page, filter: filterFrom(params) };
  if (page === "approvals") return { page };
  if (page !== "agent") return undefined;
  const session = await web.link
    .client()
    .findSession(params.get("session") ?? "")
    .catch(() => undefined);
  const agent = params.get("agent") ?? "";
  if (!session) return undefined;
  try {
    // The client's own check of the name (a TypeError for what is not one).
    web.link.client().session(session.id).agent(agent);
  } catch {
    return undefined;
  }
  const from = Number(params.get("from"));
  const epoch = Number(params.get("epoch"));
  // A browser that comes back to a stream no longer kept has a transcript of unknown age: it is sent anew.
  const chat = !afresh && Number.isSafeInteger(from) && from >= 0 ? { from, epoch } : undefined;
  return { page, session, agent, chat };
}
