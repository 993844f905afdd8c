import type {
  AgentActivity,
  AgentConfig,
  OllieClient,
  Outcome,
  SessionBudget,
  SessionEntry,
  UsageTotals,
} from "@ollie/client";

/** One agent as the sessions page shows it. */
export interface AgentView {
  name: string;
  activity: AgentActivity | undefined;
  cfg: AgentConfig | undefined;
  turns: number;
  outcome: Outcome | undefined;
  usage: UsageTotals | undefined;
}

/** One session as the sessions page shows it: the index's line, its agents, its budget. */
export interface SessionView {
  entry: SessionEntry;
  agents: AgentView[];
  budget: SessionBudget | undefined;
}

/**
 * Reads what the sessions page shows of a session. A file that cannot be read (the session ending as it is
 * read) leaves its part empty rather than failing the page.
 */
export async function readSessionView(client: OllieClient, entry: SessionEntry): Promise<SessionView> {
  const session = client.session(entry.id);
  const [names, budget] = await Promise.all([
    session.agents().catch(() => ["main"]),
    session.budget().catch(() => undefined),
  ]);
  const agents = await Promise.all(
    names.map(async (name): Promise<AgentView> => {
      const agent = session.agent(name);
      const [activity, cfg, turns, outcome, usage] = await Promise.all([
        agent.activity().catch(() => undefined),
        agent.cfg().catch(() => undefined),
        agent.turns().catch(() => 0),
        agent.outcome().catch(() => undefined),
        agent.usage().then(
          (u) => u.session,
          () => undefined,
        ),
      ]);
      return { name, activity, cfg, turns, outcome, usage };
    }),
  );
  return { entry, agents, budget };
}

/** What the filter on the sessions page asks for. */
export interface SessionFilter {
  /** Words each to be found in the session's id, name, directory, or an agent's profile or model. */
  text: string;
  state: "any" | "running" | "idle" | "failed";
}

export function filterFrom(params: URLSearchParams): SessionFilter {
  const state = params.get("state");
  return {
    text: (params.get("q") ?? "").trim(),
    state: state === "running" || state === "idle" || state === "failed" ? state : "any",
  };
}

export function matches(view: SessionView, filter: SessionFilter): boolean {
  const haystack = [
    view.entry.id,
    view.entry.name,
    view.entry.cwd,
    ...view.agents.flatMap((a) => [a.name, a.cfg?.profile ?? "", a.cfg?.model ?? ""]),
  ]
    .join(" ")
    .toLowerCase();
  const words = filter.text.toLowerCase().split(/\s+/).filter(Boolean);
  if (!words.every((w) => haystack.includes(w))) return false;
  const running = view.agents.some((a) => (a.activity?.state ?? "idle") !== "idle");
  const failed = view.agents.some((a) => a.outcome?.status === "error");
  if (filter.state === "running") return running;
  if (filter.state === "idle") return !running;
  if (filter.state === "failed") return failed;
  return true;
}
