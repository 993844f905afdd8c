// The one script of ollie web's pages. The pages work without it; it keeps them live (a stream of
// server-sent events, see LiveStream) and sends their forms without reloading. Markup comes only from the server,
// which escapes everything it did not make, and goes in only through the Trusted Types policy below — the
// page's Content-Security-Policy refuses any other.

import { enhanceForms } from "./forms.js";
import { keyboard } from "./keyboard.js";
import { LiveStream } from "./live-stream.js";
import { offerNotifications } from "./notify.js";
import { applyOps, type PageOp } from "./page-ops.js";

const streamUrl = document.querySelector<HTMLMetaElement>('meta[name="ollie-stream"]')?.content;
const link = document.getElementById("link");

/**
 * What the stream sent since the page was last drawn: applied together before the next frame, so a burst of
 * rows changing costs one layout, not one each. A hidden page draws no frames; it applies them now and then.
 */
const waiting: PageOp[] = [];
let scheduled = false;
function schedule(): void {
  if (scheduled) return;
  scheduled = true;
  const apply = () => {
    scheduled = false;
    applyOps(waiting.splice(0));
  };
  if (document.hidden) setTimeout(apply, 250);
  else requestAnimationFrame(apply);
}

if (streamUrl)
  new LiveStream(
    streamUrl,
    (ops) => {
      waiting.push(...ops);
      schedule();
    },
    (text) => {
      if (link) link.textContent = text;
    },
  ).start();
enhanceForms();
keyboard();
offerNotifications();
