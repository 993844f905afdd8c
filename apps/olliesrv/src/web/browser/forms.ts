/**
 * Sends the pages' forms without reloading: the page stays as the live stream keeps it, and what olliesrv
 * refused is said above the form. A form sent this way carries the page's form token in a header.
 */
const sending = new WeakSet<HTMLFormElement>();

export function enhanceForms(): void {
  const token = document.querySelector<HTMLMetaElement>('meta[name="ollie-form-token"]')?.content ?? "";
  document.addEventListener("submit", (event) => {
    const form = event.target;
    if (!(form instanceof HTMLFormElement) || form.method.toLowerCase() !== "post") return;
    event.preventDefault();
    // Once at a time: Ctrl+Enter again while a prompt is on its way does not send it twice.
    if (sending.has(form)) return;
    sending.add(form);
    void send(form, token).finally(() => sending.delete(form));
  });
}

async function send(form: HTMLFormElement, token: string): Promise<void> {
  const button = form.querySelector<HTMLButtonElement>("button[type=submit]");
  if (button) button.disabled = true;
  try {
    const answer = await fetch(form.action, {
      method: "POST",
      body: new URLSearchParams(new FormData(form) as unknown as Record<string, string>),
      headers: { Accept: "application/json", "X-CSRF-Token": token },
    });
    const reply = (await answer
      .json()
      .catch(() => ({ problem: `${answer.status} ${answer.statusText}` }))) as {
      location?: string;
      problem?: string;
    };
    if (reply.problem !== undefined) return say(form, reply.problem);
    say(form, "");
    if (reply.location && reply.location !== window.location.pathname) window.location.assign(reply.location);
    else if (form.id === "prompt-form") form.reset();
  } catch (error) {
    say(form, `not sent: ${(error as Error).message}`);
  } finally {
    if (button) button.disabled = false;
  }
}

/** Says a problem just before the form (or clears it). */
function say(form: HTMLFormElement, problem: string): void {
  let note = form.previousElementSibling;
  if (!(note instanceof HTMLParagraphElement && note.classList.contains("problem"))) {
    if (problem === "") return;
    note = document.createElement("p");
    note.className = "problem";
    note.setAttribute("role", "alert");
    form.before(note);
  }
  note.textContent = problem;
  if (problem === "") note.remove();
}
