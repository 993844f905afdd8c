import type { PageOp } from "../live/page-ops.js";
import { notify } from "./notify.js";

export type { PageOp };

interface HtmlPolicy {
  createHTML(markup: string): string;
}

declare global {
  interface Window {
    trustedTypes?: { createPolicy(name: string, rules: { createHTML(markup: string): string }): HtmlPolicy };
  }
}

/** The one way markup enters the page: what the server sent, which escaped everything it did not make. */
const policy: HtmlPolicy = window.trustedTypes?.createPolicy("ollie", { createHTML: (markup) => markup }) ?? {
  createHTML: (markup) => markup,
};

function markup(target: Element, text: string, where: "replace" | "append" | "outer"): void {
  const trusted = policy.createHTML(text) as unknown as string;
  if (where === "replace") target.innerHTML = trusted;
  else if (where === "outer") target.outerHTML = trusted;
  else target.insertAdjacentHTML("beforeend", trusted);
}

/** Whether the chat is scrolled to its end: it then follows what comes. */
function atEnd(): boolean {
  const doc = document.scrollingElement ?? document.documentElement;
  return doc.scrollHeight - doc.scrollTop - doc.clientHeight < 80;
}

export function applyOps(ops: readonly PageOp[]): void {
  const following = atEnd();
  const focused = focusedControl();
  for (const op of ops) apply(op);
  if (focused) refocus(focused);
  if (following && document.getElementById("chat")) window.scrollTo(0, document.documentElement.scrollHeight);
}

/** The control with the focus, by what makes it the same control in new markup: its form, name and words. */
interface FocusedControl {
  element: HTMLElement;
  key: string;
  value: string | undefined;
}

function controlKey(element: Element): string {
  const form = element.closest("form")?.getAttribute("action") ?? "";
  return `${form}|${element.tagName}|${element.getAttribute("name") ?? ""}|${element.getAttribute("aria-label") ?? element.textContent ?? ""}`;
}

function focusedControl(): FocusedControl | undefined {
  const element = document.activeElement;
  if (!(element instanceof HTMLElement) || element === document.body) return undefined;
  const value =
    element instanceof HTMLInputElement ||
    element instanceof HTMLTextAreaElement ||
    element instanceof HTMLSelectElement
      ? element.value
      : undefined;
  return { element, key: controlKey(element), value };
}

/**
 * A live update that replaced the markup holding the focused control (a row's buttons, a reason being typed)
 * puts the focus, and what was typed, on the same control in the new markup.
 */
function refocus(focused: FocusedControl): void {
  if (focused.element.isConnected) return;
  for (const candidate of document.querySelectorAll<HTMLElement>(focused.element.tagName)) {
    if (controlKey(candidate) !== focused.key) continue;
    if (focused.value !== undefined && "value" in candidate)
      (candidate as HTMLInputElement).value = focused.value;
    candidate.focus();
    return;
  }
}

function apply(op: PageOp): void {
  const byId = (id: string) => document.getElementById(id);
  switch (op.op) {
    case "html": {
      const target = byId(op.id);
      if (target) markup(target, op.html, "replace");
      return;
    }
    case "upsert": {
      const target = byId(op.id);
      if (target) markup(target, op.html, "outer");
      else {
        const parent = byId(op.parent);
        if (parent) markup(parent, op.html, "append");
      }
      return;
    }
    case "remove":
      byId(op.id)?.remove();
      return;
    case "only": {
      const keep = new Set(op.ids);
      for (const row of byId(op.parent)?.querySelectorAll(".session") ?? [])
        if (!keep.has(row.id)) row.remove();
      return;
    }
    case "append": {
      const target = byId(op.id);
      if (target) markup(target, op.html, "append");
      return;
    }
    case "text": {
      const target = byId(op.id);
      if (target) target.textContent = op.text;
      return;
    }
    case "appendText":
      byId(op.id)?.append(op.text);
      return;
    case "result": {
      // The chat's line for the oldest call of the tool still running (its first line; the whole result may
      // have come already, from the tool's event).
      const waiting = document.querySelector(
        `#chat pre.result[data-pending][data-tool="${CSS.escape(op.tool)}"]`,
      );
      if (!waiting) return;
      waiting.removeAttribute("data-pending");
      waiting.setAttribute("data-live", "");
      if (!waiting.hasAttribute("data-full")) waiting.textContent = op.text;
      return;
    }
    case "fullResult": {
      // The whole result, for the oldest call of the tool seen live that has not had it: one still running,
      // else one whose chat line came first. Calls shown before the page opened keep their first line.
      const tool = CSS.escape(op.tool);
      const target =
        document.querySelector(`#chat pre.result[data-pending][data-tool="${tool}"]:not([data-full])`) ??
        document.querySelector(`#chat pre.result[data-live][data-tool="${tool}"]:not([data-full])`);
      if (!target) return;
      target.setAttribute("data-full", "");
      target.textContent = op.text;
      return;
    }
    case "notify":
      notify(op.title, op.body, op.url);
      return;
    case "announce": {
      const region = byId("announce");
      if (region) region.textContent = op.text;
      return;
    }
    case "link": {
      const target = byId("link");
      if (target) target.textContent = op.text;
      return;
    }
  }
}
