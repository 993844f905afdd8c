import { Errno, NinepError } from "@ollie/ninep";
import {
  buildTree,
  ctl,
  dir,
  each,
  type FileHandlers,
  file,
  log,
  text,
  type VirtualTree,
  wait,
} from "@ollie/virtfs";
import type { ProcessInfo } from "../protocol/process-info.js";
import { agentSandbox } from "../server/agent-sandbox.js";
import type { AgentTools } from "../server/agent-tools.js";
import type { OwnMcp } from "../server/own-mcp.js";
import type { ProcEntry } from "../server/proc-table.js";
import type { ToolService } from "../server/tool-service.js";
import { agentMcpFile } from "./agent-mcp-file.js";
import { callFile } from "./call-file.js";

export interface ToolTreeOptions {
  /** The uname that owns the tree (the human running toolsrv). */
  owner: string;
  /** Where agents' own MCP servers are set (no `agentmcp` file without it). */
  ownMcp?: OwnMcp;
  /** More top-level nodes (the bypass broker's). */
  extra?: Parameters<typeof dir>[1];
}

const json = (value: unknown) => `${JSON.stringify(value, null, 2)}\n`;

/** For files made by reading tool sources, the sandbox policy or MCP servers: at each open, not at a stat. */
const atOpenOnly = { size: false } as const;

/**
 * toolsrv's namespace (see NAMESPACE.md). The per-agent files — loaded, rev, revwait, ctl, call — act on
 * the loaded set of whoever attached: each agent principal sees its own.
 */
export function toolTree(service: ToolService, options: ToolTreeOptions): VirtualTree {
  const { sources, agents, procs } = service;
  return buildTree(
    dir("/", [
      file(
        "tools",
        text(
          async ({ uname }) => json([...(await sources.tools(uname)).values()].map((t) => t.meta)),
          atOpenOnly,
        ),
      ),
      file(
        "broken",
        text(
          async ({ uname }) => (await sources.broken(uname)).map((b) => `${b.file}: ${b.reason}\n`).join(""),
          atOpenOnly,
        ),
      ),
      file(
        "loaded",
        text(async ({ uname }) => json(await service.loaded(uname)), atOpenOnly),
      ),
      file(
        "rev",
        text(({ uname }) => `${agents.of(uname).revision.get()}\n`),
      ),
      file("revwait", revisionWait(service)),
      file(
        "sandbox",
        text(
          async ({ uname }) => json(agentSandbox(uname, agents.get(uname), await service.sandbox())),
          atOpenOnly,
        ),
      ),
      file(
        "ctl",
        ctl({
          load: async (names, { uname }) => {
            const loaded = await service.load(uname, names);
            if ("unknown" in loaded)
              throw new NinepError(`no tool named ${loaded.unknown.join(", ")}`, { errno: Errno.ENOENT });
          },
          unload: (names, { uname }) => {
            agents.of(uname).unload(names);
          },
          reset: (names, { uname }) => agents.of(uname).reset(names),
          reload: async () => {
            await sources.tools();
            agents.bumpAll();
          },
        }),
        0o666,
      ),
      file("call", callFile(service), 0o666),
      // Anyone may try to open it; the file says who may not, and why.
      ...(options.ownMcp ? [file("agentmcp", agentMcpFile(options.ownMcp), 0o666)] : []),
      // The servers' standard error may say what agents must not read (another agent's own server's, say).
      file(
        "mcp",
        text(
          async () => json([...((await sources.mcp?.status()) ?? []), ...(sources.own?.status() ?? [])]),
          atOpenOnly,
        ),
        { mode: 0o400, owner: options.owner },
      ),
      each(
        "proc",
        () => procs.list(),
        (p: ProcEntry) => procDir(p),
        // Named without building each process's directory, which a walk would otherwise do for every one.
        { key: (p) => String(p.id) },
      ),
      each(
        "agent",
        () => agents.list(),
        (tools: AgentTools) =>
          dir(tools.uname, [
            file(
              "sandbox",
              text(async () => json(agentSandbox(tools.uname, tools, await service.sandbox())), atOpenOnly),
            ),
          ]),
        { key: (tools) => tools.uname, lookup: (name) => agents.get(name) },
      ),
      ...(options.extra ?? []),
    ]),
    { owner: options.owner },
  );
}

function procDir(p: ProcEntry) {
  return dir(String(p.id), [
    file(
      "status",
      text(() => `${p.status.get()}\n`),
    ),
    file("statuswait", wait(p.status)),
    file("output", log(p.run.stream)),
    file(
      "info",
      text(() =>
        json({
          id: p.id,
          tool: p.run.tool,
          agent: p.uname,
          pid: p.run.pid,
          args: p.args,
          cwd: p.cwd,
          detached: p.detached,
          started: p.run.startedAt.toISOString(),
          status: p.status.get(),
        } satisfies ProcessInfo),
      ),
    ),
    file(
      "ctl",
      ctl({
        kill: (_args, { uname }) => {
          if (uname !== p.uname)
            throw new NinepError(`process ${p.id} belongs to ${p.uname}`, { errno: Errno.EPERM });
          p.run.kill();
        },
      }),
      0o666,
    ),
  ]);
}

interface RevisionWait {
  last: number;
}

/** Blocks until the attaching agent's revision differs from the one this fid saw last. */
function revisionWait(service: ToolService): FileHandlers<RevisionWait> {
  return {
    open: ({ uname }) => ({ last: service.agents.of(uname).revision.get() }),
    async read({ state, uname, offset, signal }) {
      if (offset > 0) return "";
      const revision = service.agents.of(uname).revision;
      while (revision.get() === state.last) await revision.changed(signal);
      state.last = revision.get();
      return `${state.last}\n`;
    },
  };
}
