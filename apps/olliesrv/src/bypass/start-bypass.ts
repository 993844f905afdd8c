import { join } from "node:path";
import type { Logger } from "@ollie/log";
import { type Authenticator, hmacAuthenticator } from "@ollie/ninep";
import type { NodeSpec } from "@ollie/virtfs";
import type { Sessions } from "../session/sessions.js";
import { splitUname } from "../session/slot-context.js";
import type { ToolsrvSupervisor } from "../toolsrv/toolsrv-supervisor.js";
import { BypassDesk } from "./bypass-desk.js";
import { bypassTree } from "./bypass-tree.js";
import { Notifier } from "./notify.js";

export interface BypassSetup {
  sessions: Sessions;
  /** The human's uname and the key they prove. */
  owner: string;
  ownerKey: string;
  /** Where toolsrv serves, and the key every agent proves to it. */
  toolsrvAddress: string;
  toolsrvKey: string | undefined;
  /** The toolsrv olliesrv started and restarts when it dies; undefined for one given with `--toolsrv`. */
  supervisor: Pick<ToolsrvSupervisor, "onEnded" | "onUp"> | undefined;
  /** `$XDG_CONFIG_HOME/ollie`, where notify.conf is. */
  configDir: string;
  log: Logger;
  audit(line: string, source: string): void;
}

/**
 * olliesrv's bypass desk and its `bypass/` directory, following toolsrv from now on — and each toolsrv
 * started after one died. The toolsrv olliesrv starts takes the owner's decisions only with the owner key (`--owner-key`); one given with `--toolsrv` may
 * not have one, so its service key (or no proof) is tried after it.
 */
export function startBypass(setup: BypassSetup): { desk: BypassDesk; tree: NodeSpec } {
  const { sessions, log } = setup;
  const serviceAuth = setup.toolsrvKey === undefined ? undefined : hmacAuthenticator(setup.toolsrvKey);
  const ownerAuth: Array<Authenticator | undefined> = [hmacAuthenticator(setup.ownerKey)];
  if (!setup.supervisor) ownerAuth.push(serviceAuth);
  const bypassLog = log.child("bypass");
  const notifier = new Notifier({ file: join(setup.configDir, "notify.conf"), log: bypassLog });
  const desk = new BypassDesk({
    toolsrvAddress: setup.toolsrvAddress,
    owner: setup.owner,
    ownerAuth,
    ...(serviceAuth && { agentAuth: serviceAuth }),
    agent: (uname) => {
      const slot = sessions.agent(uname);
      const session = slot && sessions.get(splitUname(uname)!.session);
      if (!slot || !session) return undefined;
      return { session: session.id, cwd: session.cwd, note: (line) => slot.shown.chat.note(line) };
    },
    notify: (notice) => void notifier.bypass(notice),
    log: bypassLog,
  });
  desk.start();
  // A toolsrv that died took its requests with it; the one started after it is followed as soon as it serves.
  setup.supervisor?.onEnded((why) => desk.toolsrvEnded(why));
  setup.supervisor?.onUp(() => desk.retry());
  return { desk, tree: bypassTree(desk, { owner: setup.owner, audit: setup.audit }) };
}
