import { Errno, NinepError } from "@ollie/ninep";
import { ctl, dir, each, file, text } from "@ollie/virtfs";
import type { AgentSlot } from "../session/agent-slot.js";
import { remoteFile } from "./remote-file.js";

type Item = "idx" | number;

/**
 * `proc/`: the agent's tool processes at toolsrv, one directory each — `status`, `output` and `ctl` — and
 * `idx`, one line per process (id, tool, status, start time), read from toolsrv at each open. The directory
 * lists the processes as last asked for (see ToolProcs): reading `idx` brings it up to date at once.
 */
export function procDir(slot: AgentSlot, group: string) {
  const procs = slot.shown.procs;
  const perm = { owner: slot.uname, group };
  return each(
    "proc",
    (): Item[] => ["idx", ...procs.list().map((p) => p.id)],
    (item: Item) =>
      item === "idx"
        ? file(
            "idx",
            text(
              async () =>
                (await procs.refresh())
                  .map((p) => `${p.id}\t${p.tool}\t${p.status}\t${p.started}\n`)
                  .join(""),
              // Asks toolsrv: at each open, not at each stat.
              { size: false },
            ),
            { mode: 0o444, ...perm },
          )
        : processDir(slot, item, perm),
    {
      key: String,
      lookup: (name) => (name === "idx" ? "idx" : procs.get(Number(name)) ? Number(name) : undefined),
      mode: 0o555,
      ...perm,
    },
  );
}

/** `proc/ID/`: one process. */
function processDir(slot: AgentSlot, id: number, perm: { owner: string; group: string }) {
  const gone = () =>
    new NinepError(`process ${id} is gone (toolsrv keeps the last 64 that ended)`, { errno: Errno.ESRCH });
  const conn = () => slot.toolsrv;
  return dir(
    String(id),
    [
      file(
        "status",
        text(
          async () => {
            const info = await conn()?.process(id);
            if (!info) throw gone();
            return `${info.status}\n`;
          },
          { size: false },
        ),
        { mode: 0o444, ...perm },
      ),
      // What the process printed (stdout and stderr as they came), from its start; a read at the end waits
      // for more until it ends. Each open reads toolsrv's own file through a fid of its own.
      file(
        "output",
        remoteFile(async (signal) => {
          const c = conn();
          if (!c) throw gone();
          return c.openOutput(id, signal).catch(() => {
            throw gone();
          });
        }),
        { mode: 0o444, ...perm },
      ),
      file(
        "ctl",
        ctl({
          kill: async () => {
            const c = conn();
            if (!c || !(await c.process(id))) throw gone();
            await c.kill(id);
            void slot.shown.procs.refresh();
          },
        }),
        { mode: 0o664, ...perm },
      ),
    ],
    { mode: 0o555, ...perm },
  );
}
