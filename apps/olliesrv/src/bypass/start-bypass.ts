import { join } from "node:path";
import type { Logger } from "@ollie/log";
import { type Authenticator, hmacAuthenticator } from "@ollie/ninep";
import type { NodeSpec } from "@ollie/virtfs";
import type { Sessions } from "../session/sessions.js";
import { splitUname } from "../session/slot-context.js";
import { BypassDesk } from "./bypass-desk.js";
import { bypassTree } from "./bypass-tree.js";
import { Notifier } from "./notify.js";

export interface BypassSetup {
  sessions: Sessions;
  /** The human's uname and the key they prove. */
  owner: string;
  ownerKey: string;
  /** Where toolsrv serves, whether olliesrv started it, and the key every agent proves to it. */
  toolsrvAddress: string;
  startedToolsrv: boolean;
  toolsrvKey: string | undefined;
  /** `$XDG_CONFIG_HOME/ollie`, where notify.conf is. */
  configDir: string;
  log: Logger;
  audit(line: string, source: string): void;
}

/**
 * olliesrv's bypass desk and its `bypass/` directory, following toolsrv from now on. The toolsrv olliesrv
 * starts takes the owner's decisions only with the owner key (`--owner-key`); one given with `--toolsrv` may
 * not have one, so its service key (or no proof) is tried after it.
 */
export function startBypass(setup: BypassSetup): { desk: BypassDesk; tree: NodeSpec } {
  const { sessions, log } = setup;
  const serviceAuth = setup.toolsrvKey === undefined ? undefined : hmacAuthenticator(setup.toolsrvKey);
  const ownerAuth: Array<Authenticator | undefined> = [hmacAuthenticator(setup.ownerKey)];
  if (!setup.startedToolsrv) ownerAuth.push(serviceAuth);
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
      return { session: session.id, cwd: session.cwd, note: (line) => slot.chat.note(line) };
    },
    notify: (notice) => void notifier.bypass(notice),
    log: bypassLog,
  });
  desk.start();
  return { desk, tree: bypassTree(desk, { owner: setup.owner, audit: setup.audit }) };
}
