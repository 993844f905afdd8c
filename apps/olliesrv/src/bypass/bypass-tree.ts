import { Errno, NinepError, OREAD } from "@ollie/ninep";
import { clone, ctl, dir, each, file, type NodeSpec, text, wait } from "@ollie/virtfs";
import { remoteFile } from "../namespace/remote-file.js";
import { REQUEST_ID } from "../request-id.js";
import type { BypassDesk, KnownRequest } from "./bypass-desk.js";

export interface BypassTreeOptions {
  /** The human's uname: the only one who sees what waits and decides. */
  owner: string;
  /** Records a refusal in the audit trail. */
  audit(line: string, source: string): void;
}

const FIXED = ["new", "operations", "pending", "wait"] as const;
type Fixed = (typeof FIXED)[number];

/**
 * `bypass/`: an agent files a request to run something outside the sandbox (`new`); the owner sees what
 * waits (`pending`, and `wait`, which blocks until that changes) and decides (`ID/ctl`). Each request's
 * `decision`, `status` and `output` are toolsrv's, read through olliesrv's connection as the owner;
 * they are readable by the owner and the members of the asking agent's session.
 */
export function bypassTree(desk: BypassDesk, options: BypassTreeOptions): NodeSpec {
  const { owner } = options;
  const ownerOnly = { mode: 0o400, owner };
  const fixed: Record<Fixed, () => NodeSpec> = {
    new: () =>
      file(
        "new",
        clone(async (spec, { uname }) => String(await desk.file(uname, spec))),
        0o666,
      ),
    operations: () =>
      file(
        "operations",
        // Asks toolsrv: at each open, not at each stat.
        text(() => desk.operations(), { size: false }),
      ),
    pending: () =>
      file(
        "pending",
        text(() => desk.pending.get()),
        ownerOnly,
      ),
    wait: () => file("wait", wait(desk.pending, { format: (listing) => listing }), ownerOnly),
  };
  return each(
    "bypass",
    () => [...FIXED, ...desk.list()] as Array<Fixed | KnownRequest>,
    (item) => (typeof item === "string" ? fixed[item]() : requestDir(desk, item, options)),
    {
      key: (item) => (typeof item === "string" ? item : String(item.id)),
      lookup: (name) =>
        (FIXED as readonly string[]).includes(name)
          ? (name as Fixed)
          : REQUEST_ID.test(name)
            ? desk.get(Number(name))
            : undefined,
    },
  );
}

function requestDir(desk: BypassDesk, k: KnownRequest, { owner, audit }: BypassTreeOptions): NodeSpec {
  const group = k.session;
  const readers = group === undefined ? { mode: 0o400, owner } : { mode: 0o440, owner, group };
  // toolsrv's own file, read through the owner's connection.
  const there = (name: string) =>
    file(
      name,
      remoteFile(async (signal) =>
        (await desk.ownerFsys(signal)).open(`bypass/requests/${k.id}/${name}`, OREAD, signal),
      ),
      readers,
    );
  return dir(
    String(k.id),
    [
      file(
        "request",
        text(
          () =>
            `${JSON.stringify({ id: k.id, agent: k.agent, operation: k.operation, command: k.command, reason: k.reason, cwd: k.cwd, decision: k.decision }, null, 2)}\n`,
        ),
        readers,
      ),
      there("decision"),
      there("decisionwait"),
      there("status"),
      there("statuswait"),
      there("output"),
      file(
        "ctl",
        ctl({
          approve: async (_args, { uname }) => {
            allowed(uname);
            await desk.decide(k.id, "approve");
          },
          deny: async (_args, { uname, rest }) => {
            allowed(uname);
            await desk.decide(k.id, "deny", rest);
          },
        }),
        { mode: 0o600, owner },
      ),
    ],
    // Open to walk, so that a refusal is a file's, said and audited as any other.
    { ...readers, mode: 0o555 },
  );

  // The file's mode already keeps everyone else out; this says so again where the decision is made.
  function allowed(uname: string): void {
    if (uname === owner) return;
    audit(`refused a bypass decision by ${uname} on request ${k.id}`, uname);
    throw new NinepError(`only ${owner} decides bypass requests`, { errno: Errno.EACCES });
  }
}
