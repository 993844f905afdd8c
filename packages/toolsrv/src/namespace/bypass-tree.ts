import { clone, ctl, dir, each, file, log, text, wait } from "@ollie/virtfs";
import type { BypassBroker, BypassRequest } from "../broker/bypass-broker.js";
import type { BypassRequestInfo } from "../protocol/bypass-request.js";

/**
 * `bypass/`: `new` files a request (write the JSON, read back its id); `operations` lists what the policy
 * offers; `pending` lists the requests waiting for the owner and `wait` blocks until that list changes (both
 * the owner's alone: they are how a daemon acting for the owner learns that someone waits); each request has
 * its `request`, `status`, `statuswait`, `decision`, `decisionwait`, `output` and a `ctl` that only the owner
 * may write (`approve`, or `deny [REASON]`); `log` holds every request, decision and run.
 */
export function bypassTree(broker: BypassBroker, owner: string) {
  const owners = { mode: 0o400, owner };
  return dir("bypass", [
    file(
      "new",
      clone((spec, { uname }) => String(broker.request(uname, JSON.parse(spec)))),
      0o666,
    ),
    file("log", log(broker.log)),
    file(
      "operations",
      text(() => broker.operations()),
    ),
    file(
      "pending",
      text(() => broker.pending.get()),
      owners,
    ),
    file("wait", wait(broker.pending, { format: (listing) => listing }), owners),
    each(
      "requests",
      () => broker.list(),
      (r: BypassRequest) =>
        dir(String(r.id), [
          file(
            "request",
            text(
              () =>
                `${JSON.stringify({ id: r.id, agent: r.uname, ...r.spec, filed: r.filed.toISOString() } satisfies BypassRequestInfo, null, 2)}\n`,
            ),
          ),
          file(
            "status",
            text(() => `${r.status.get()}\n`),
          ),
          file("statuswait", wait(r.status)),
          file(
            "decision",
            text(() => `${r.decision.get()}\n`),
          ),
          file("decisionwait", wait(r.decision)),
          file("output", log(r.output)),
          file(
            "ctl",
            ctl({
              approve: (_args, { uname }) => broker.decide(r.id, "approve", uname),
              deny: (_args, { uname, rest }) => broker.decide(r.id, "deny", uname, rest),
            }),
            { mode: 0o600, owner },
          ),
        ]),
      {
        key: (r) => String(r.id),
        lookup: (name) => (/^[1-9]\d*$/.test(name) ? broker.get(Number(name)) : undefined),
      },
    ),
  ]);
}
