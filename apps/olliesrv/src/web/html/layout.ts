import { html, type SafeHtml } from "./html.js";

/** What a page is, for its shell. */
export interface PageShell {
  title: string;
  /** Which part of the navigation is this page's. */
  section: "sessions" | "approvals" | "agent";
  /** The address of this page's live stream (GET /events?…). */
  stream: string;
  /** The form token (see WebAccess): in a meta tag for the script, and in every form. */
  formToken: string;
  /** A problem to show at the top: what olliesrv refused, say. */
  problem?: string | undefined;
  body: SafeHtml;
}

/**
 * The page around every view: navigation, the live link's state, a polite live region for what is worth
 * announcing (turns ending, requests arriving), and the one script. Everything works without the script:
 * it only keeps the page live and sends forms without reloading.
 */
export function layout(shell: PageShell): string {
  const current = (section: PageShell["section"]) =>
    shell.section === section ? html` aria-current="page"` : "";
  return `<!doctype html>${
    html`<html lang="en">
<head>
<meta charset="utf-8">
<meta name="viewport" content="width=device-width, initial-scale=1">
<meta name="ollie-stream" content="${shell.stream}">
<meta name="ollie-form-token" content="${shell.formToken}">
<title>${shell.title} · ollie</title>
<link rel="stylesheet" href="/static/app.css">
<script type="module" src="/static/app.js"></script>
</head>
<body>
<a class="skip" href="#main">Skip to content</a>
<header class="top">
<nav aria-label="Ollie">
<a href="/"${current("sessions")}>Sessions</a>
<a href="/approvals"${current("approvals")}>Approvals <span id="approval-count" class="count"></span></a>
</nav>
<p id="link" class="link" role="status">static page</p>
<button type="button" id="notify" class="notify" hidden>Notify me of approvals</button>
</header>
<main id="main">
${shell.problem ? html`<p class="problem" role="alert">${shell.problem}</p>` : ""}
${shell.body}
</main>
<div id="announce" class="visually-hidden" aria-live="polite"></div>
</body>
</html>
`.text
  }`;
}

/** The hidden field that proves a form was sent from one of these pages. */
export function formTokenField(token: string): SafeHtml {
  return html`<input type="hidden" name="csrf" value="${token}">`;
}

/** A form with one button that posts to `action`: kill, stop, approve… */
export function actionButton(
  action: string,
  label: string,
  token: string,
  options: { fields?: Record<string, string>; danger?: boolean; label?: string } = {},
): SafeHtml {
  const fields = Object.entries(options.fields ?? {}).map(
    ([name, value]) => html`<input type="hidden" name="${name}" value="${value}">`,
  );
  return html`<form method="post" action="${action}" class="inline">${formTokenField(token)}${fields}<button type="submit"${options.danger ? html` class="danger"` : ""}${options.label ? html` aria-label="${options.label}"` : ""}>${label}</button></form>`;
}
