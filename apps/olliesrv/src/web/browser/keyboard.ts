/** `/` goes to the prompt box; Ctrl+Enter (or ⌘+Enter) in it sends it. */
export function keyboard(): void {
  const prompt = document.getElementById("prompt-text");
  if (!(prompt instanceof HTMLTextAreaElement)) return;
  document.addEventListener("keydown", (event) => {
    const typing =
      event.target instanceof HTMLInputElement ||
      event.target instanceof HTMLTextAreaElement ||
      event.target instanceof HTMLSelectElement;
    if (event.key === "/" && !typing && !event.ctrlKey && !event.metaKey && !event.altKey) {
      event.preventDefault();
      prompt.focus();
    }
  });
  prompt.addEventListener("keydown", (event) => {
    if (event.key === "Enter" && (event.ctrlKey || event.metaKey)) {
      event.preventDefault();
      prompt.form?.requestSubmit();
    }
  });
}
