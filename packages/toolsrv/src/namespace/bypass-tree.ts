import { clone, ctl, dir, each, file, log, text, wait } from "@ollie/virtfs";
import type { BypassBroker, BypassRequest } from "../broker/bypass-broker.js";

/**
 * `bypass/`: `new` files a request (write the JSON, read back its id); each request has its `request`,
 * `status`, `statuswait`, `output` and a `ctl` that only the owner may write (`approve` or `deny`); `log`
 * holds every request, decision and run.
 */
export function bypassTree(broker: BypassBroker, owner: string) {
  return dir("bypass", [
    file(
      "new",
      clone((spec, { uname }) => String(broker.request(uname, JSON.parse(spec)))),
      0o666,
    ),
    file("log", log(broker.log)),
    each(
      "requests",
      () => broker.list(),
      (r: BypassRequest) =>
        dir(String(r.id), [
          file(
            "request",
            text(() => `${JSON.stringify({ id: r.id, agent: r.uname, ...r.spec }, null, 2)}\n`),
          ),
          file(
            "status",
            text(() => `${r.status.get()}\n`),
          ),
          file("statuswait", wait(r.status)),
          file("output", log(r.output)),
          file(
            "ctl",
            ctl({
              approve: (_args, { uname }) => broker.decide(r.id, "approve", uname),
              deny: (_args, { uname }) => broker.decide(r.id, "deny", uname),
            }),
            { mode: 0o600, owner },
          ),
        ]),
      { key: (r) => String(r.id) },
    ),
  ]);
}
