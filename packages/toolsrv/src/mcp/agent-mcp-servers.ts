import type { BrokenTool } from "../metadata/tool-meta.js";
import { linkStatus, type McpServerStatus, type McpToolEntry, surveyLinks } from "./links-survey.js";
import type { McpServerConfig } from "./mcp-config.js";
import type { LinkContext, McpLink } from "./mcp-link.js";

/** Where an agent's own servers start: its directory, and the environment its tools get. */
export interface AgentPlace {
  cwd: string;
  env: Record<string, string>;
}

/** One agent's servers, as last given, and who gave them. */
interface AgentSet {
  /** The open that set them: only its end (or a newer set) stops them. */
  holder: object;
  links: McpLink[];
  /** Entries that could not be used. */
  broken: BrokenTool[];
  /** The tools already loaded for the agent once: a tool it unloads is not loaded again behind its back. */
  autoLoaded: Set<string>;
}

/** How an agent's own servers are named in `broken` and messages: `UNAME's own MCP servers: mcpServers.NAME`. */
export const ownSource = (uname: string): string => `${uname}'s own MCP servers`;

/** How long setting servers waits for their first start before it answers. */
const FIRST_START_MS = 10_000;

export interface AgentMcpOptions {
  /** The link context, but for what is the agent's: toolsrv's policy now, protected paths, who we are. */
  context: () => Omit<LinkContext, "env" | "group" | "onToolsChanged" | "workDir">;
  /** An agent's own servers' tools changed (a server listed them after a start, or said they changed). */
  onToolsChanged: (uname: string) => void;
}

/**
 * Agents' own MCP servers, given for one agent alone (by the daemon, for the servers an editor handed it):
 * each started when set, in the agent's directory with its tools' environment, under its sandbox and in
 * its resource group, as mcp.json's `"shared": false` servers are; stopped when the open that set them
 * ends, when a new set replaces them, and when toolsrv stops.
 */
export class AgentMcpServers {
  private readonly sets = new Map<string, AgentSet>();
  /** Loaded with the first server: the MCP SDK costs a toolsrv whose agents have none nothing. */
  private Link: typeof McpLink | undefined;
  private closed = false;

  constructor(private readonly options: AgentMcpOptions) {}

  /**
   * Replaces `uname`'s servers with `servers` (none stops them all), started in `place`; `holder` is the
   * open that sets them. Resolves once every server's first start has ended, or 10 s have passed.
   */
  async set(
    uname: string,
    holder: object,
    config: { servers: McpServerConfig[]; broken: BrokenTool[] },
    place: AgentPlace,
  ): Promise<void> {
    if (config.servers.length > 0) this.Link ??= (await import("./mcp-link.js")).McpLink;
    if (this.closed) throw new Error("toolsrv is stopping");
    const previous = this.sets.get(uname);
    const links = config.servers.map(
      (server) =>
        new this.Link!(
          server.kind === "stdio" ? { ...server, cwd: place.cwd } : server,
          {
            ...this.options.context(),
            workDir: place.cwd,
            env: place.env,
            group: uname,
            onToolsChanged: () => this.options.onToolsChanged(uname),
          },
          uname,
        ),
    );
    this.sets.set(uname, { holder, links, broken: config.broken, autoLoaded: new Set() });
    if (previous) {
      await Promise.all(previous.links.map((l) => l.close()));
      this.options.onToolsChanged(uname);
    }
    const deadline = settle(FIRST_START_MS);
    await Promise.race([Promise.all(links.map((l) => l.firstAttempt)), deadline.wait]);
    deadline.cancel();
  }

  /** The open that set `uname`'s servers ended: they stop, unless a newer set replaced them. */
  async release(uname: string, holder: object): Promise<void> {
    const set = this.sets.get(uname);
    if (set?.holder !== holder) return;
    this.sets.delete(uname);
    await Promise.all(set.links.map((l) => l.close()));
    this.options.onToolsChanged(uname);
  }

  /** Whether `uname` has servers of its own. */
  has(uname: string): boolean {
    return this.sets.has(uname);
  }

  /**
   * `uname`'s own servers' tools, by Ollie name, and what of them cannot be used; the tools of a server
   * still starting appear once it has.
   */
  survey(uname: string): { tools: Map<string, McpToolEntry>; broken: BrokenTool[] } {
    const set = this.sets.get(uname);
    if (!set) return { tools: new Map(), broken: [] };
    return surveyLinks(set.links, [...set.broken]);
  }

  /** Of `names`, those not loaded for `uname` before, now noted as loaded. */
  firstLoads(uname: string, names: Iterable<string>): string[] {
    const set = this.sets.get(uname);
    if (!set) return [];
    const fresh = [...names].filter((n) => !set.autoLoaded.has(n));
    for (const n of fresh) set.autoLoaded.add(n);
    return fresh;
  }

  /** Every agent's own servers, for the owner's `mcp` file. */
  status(): McpServerStatus[] {
    return [...this.sets.values()].flatMap((set) => set.links.map(linkStatus));
  }

  /** One agent's own servers, as setting them answers. */
  statesOf(uname: string): Array<{ link: McpLink; state: string; problem: string | null }> {
    return (this.sets.get(uname)?.links ?? []).map((link) => ({
      link,
      state: link.state.get(),
      problem: link.problem ?? null,
    }));
  }

  async close(): Promise<void> {
    this.closed = true;
    const sets = [...this.sets.values()];
    this.sets.clear();
    await Promise.all(sets.flatMap((set) => set.links.map((l) => l.close())));
  }
}

/** A wait of `ms` that can be let go of, so a set that answered early leaves no timer behind. */
function settle(ms: number): { wait: Promise<void>; cancel: () => void } {
  let timer: NodeJS.Timeout | undefined;
  const wait = new Promise<void>((resolve) => {
    timer = setTimeout(resolve, ms);
  });
  return { wait, cancel: () => clearTimeout(timer) };
}
