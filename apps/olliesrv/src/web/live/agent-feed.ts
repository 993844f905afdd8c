import type { OllieClient, SessionEntry } from "@ollie/client";
import {
  checkpointsPanel,
  PANEL,
  planPanel,
  queuePanel,
  statusPanel,
  usagePanel,
} from "../html/agent-panels.js";
import { processesPanel } from "../html/processes-panel.js";
import { agentPath } from "../html/session-rows.js";
import { type ChatChange, ChatHtml } from "../markdown/chat-html.js";
import { readAgentView, readCheckpoints, readTranscript } from "./agent-view.js";
import { Coalesce } from "./coalesce.js";
import type { PageOp } from "./page-ops.js";

/** The fewest milliseconds between two re-reads of the agent's panels. */
const PANELS_EVERY_MS = 250;

/** Where a page's transcript ended, so its stream goes on from there. */
export interface ChatPosition {
  /** The byte position in the chat; undefined to send the transcript anew (olliesrv restarted). */
  from: number | undefined;
}

/**
 * The agent page, live: the chat followed from where the page's transcript ended (`tail`, by byte position:
 * nothing missed, nothing twice), the model's reasoning as it streams, and the panels read again when the
 * agent's state, turns, spending or the session's plan change.
 */
export async function followAgent(
  client: OllieClient,
  signal: AbortSignal,
  send: (ops: PageOp[]) => void,
  page: { session: SessionEntry; agent: string; formToken: string; chat: ChatPosition },
): Promise<void> {
  const session = client.session(page.session.id);
  const agent = session.agent(page.agent);
  const base = agentPath(page.session.id, page.agent);
  const events = await session.events({
    topics: [
      `agent.${page.agent}.state`,
      `agent.${page.agent}.turn`,
      `agent.${page.agent}.usage`,
      `agent.${page.agent}.reasoning`,
      `agent.${page.agent}.queue`,
      `agent.${page.agent}.procs`,
      `agent.${page.agent}.tool`,
      "session.plan",
      "session.budget",
      "session.limits",
      "session.cd",
    ],
    signal,
  });
  const coalesce = new Coalesce(PANELS_EVERY_MS);
  const panels = async () => {
    const view = await readAgentView(client, page.session, page.agent);
    send([
      { op: "html", id: PANEL.status, html: statusPanel(view).text },
      { op: "html", id: PANEL.usage, html: usagePanel(view).text },
      { op: "html", id: PANEL.queue, html: queuePanel(view).text },
      {
        op: "html",
        id: PANEL.processes,
        html: processesPanel(await agent.processes().catch(() => undefined), base, page.formToken).text,
      },
    ]);
  };
  const checkpoints = async () => {
    const list = await readCheckpoints(client, page.session.id, page.agent);
    send([{ op: "html", id: PANEL.checkpoints, html: checkpointsPanel(list, base, page.formToken).text }]);
  };
  const plan = async () =>
    send([{ op: "html", id: PANEL.plan, html: planPanel(await session.plan().catch(() => "")).text }]);

  let renderer = new ChatHtml();
  let flushAt: number | undefined;
  const flushIfThere = () => {
    if (flushAt === undefined || renderer.position < flushAt) return;
    flushAt = undefined;
    send(renderer.flush().map(pageOp));
  };
  let reasoning = 0;
  let reasoningOpen = false;
  const followEvents = async () => {
    for await (const event of events) {
      if (event.kind === "session") {
        if (event.type === "plan") coalesce.schedule("plan", plan);
        else coalesce.schedule("panels", panels);
        continue;
      }
      if (event.kind !== "agent") continue;
      if (event.type === "reasoning") {
        if (!reasoningOpen) {
          reasoningOpen = true;
          reasoning++;
          send([
            {
              op: "append",
              id: "chat",
              html: `<details class="reasoning"><summary>Reasoning</summary><pre id="reasoning-${reasoning}"></pre></details>`,
            },
          ]);
        }
        send([{ op: "appendText", id: `reasoning-${reasoning}`, text: event.delta }]);
        continue;
      }
      reasoningOpen = false;
      if (event.type === "tool") {
        send([{ op: "fullResult", tool: event.call.name, text: shownResult(event.result) }]);
        continue;
      }
      coalesce.schedule("panels", panels);
      if (event.type === "turn") {
        // The model's last block has no blank line after it to end it: the turn's end does — once the chat
        // read has come as far as the chat was long when the turn ended (the two are separate reads).
        flushAt = await agent.chatLength(signal);
        flushIfThere();
        coalesce.schedule("checkpoints", checkpoints);
        send([{ op: "announce", text: `${page.agent}'s turn ended: ${event.outcome.status}` }]);
      }
    }
  };

  try {
    let from = page.chat.from;
    if (from === undefined) {
      const shown = await readTranscript(agent, signal);
      send([
        { op: "html", id: "chat", html: shown.html.text },
        { op: "text", id: "chat-tail", text: shown.tail },
      ]);
      from = shown.settled;
    }
    // Read now that the events are followed: what changed since the page was made is not missed (what did
    // not change is not sent again, see FedStream).
    coalesce.schedule("panels", panels);
    coalesce.schedule("checkpoints", checkpoints);
    coalesce.schedule("plan", plan);
    renderer = new ChatHtml(from);
    const chat = await agent.chat({ from, signal });
    const followChat = async () => {
      for await (const piece of chat) {
        send(renderer.push([piece]).map(pageOp));
        flushIfThere();
      }
    };
    // Together: when olliesrv goes both fail, and neither failure is left unheard.
    await Promise.all([followChat(), followEvents()]);
  } finally {
    coalesce.close();
    await events.close();
  }
}

/** How much of a tool's result a page is sent as it comes: the history page has every result whole. */
const RESULT_CHARS = 64 * 1024;

function shownResult(result: { content: string; isError?: boolean }): string {
  const text = result.isError ? `(error) ${result.content}` : result.content;
  if (text.length <= RESULT_CHARS) return text;
  return `${text.slice(0, RESULT_CHARS)}\n… ${text.length - RESULT_CHARS} more characters: the history page has them`;
}

function pageOp(change: ChatChange): PageOp {
  if (change.op === "append") return { op: "append", id: "chat", html: change.html };
  if (change.op === "tail") return { op: "text", id: "chat-tail", text: change.text };
  return change;
}
