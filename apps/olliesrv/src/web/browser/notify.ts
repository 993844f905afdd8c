/**
 * Browser notifications of approvals waiting, once the person allows them (a button asks: browsers allow the
 * question only after a click). Loopback is a secure context, so they work there; over plain HTTP from
 * another machine the browser offers none.
 */
export function offerNotifications(): void {
  const button = document.getElementById("notify");
  if (!button || !("Notification" in window) || Notification.permission !== "default") return;
  button.hidden = false;
  button.addEventListener("click", () => {
    void Notification.requestPermission().then(() => {
      button.hidden = true;
    });
  });
}

export function notify(title: string, body: string, url: string): void {
  if (!("Notification" in window) || Notification.permission !== "granted") return;
  const shown = new Notification(title, { body, tag: title });
  shown.addEventListener("click", () => {
    window.focus();
    window.location.assign(url);
  });
}
