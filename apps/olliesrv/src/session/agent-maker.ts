import { Agent, type AgentEvent, type AgentOptions, type PersistedSession } from "@ollie/agent-core";
import { profileLoader } from "@ollie/agent-core/config";
import { ToolsrvConn } from "@ollie/toolsrv/client";
import { turnStart } from "../checkpoints/agent-checkpoints.js";
import { CheckpointingTools } from "../checkpoints/checkpointing-tools.js";
import type { BookedProfile } from "../config/profile-book.js";
import { RedialingTools } from "../toolsrv/redialing-tools.js";
import { privateDir } from "./private-dir.js";
import { sandboxedPrompts } from "./sandboxed-prompts.js";
import { showingCommands } from "./showing-commands.js";
import { type SkillShelf, WithSkillTools } from "./skill-tools.js";
import type { AgentMaking, SlotSession } from "./slot-context.js";

/** What an agent is made from, as its slot holds it now. */
export interface AgentRecipe {
  readonly name: string;
  /** `SESSION.AGENT`: how toolsrv and the namespace know it. */
  readonly uname: string;
  /** Its private TMPDIR on this machine. */
  readonly tmpDir: string;
  /** The agent profile, as it is made from now. */
  readonly profile: { name: string; booked: BookedProfile };
  /** The backends.conf profile it was switched to, if it was. */
  readonly backend: string | undefined;
  /** The model it was switched to, if it was. */
  readonly model: string | undefined;
  /** The step limit it was given, if it was (else its profile's). */
  readonly maxSteps: number | undefined;
  /** The tools a parked agent had loaded: the next one loads them again instead of the profile's. */
  readonly loaded: readonly string[] | undefined;
  /** The saved session, or the snapshot a parked agent left, it carries on. */
  readonly saved: PersistedSession | undefined;
  /** Its loaded skills, which the skill tools answer for. */
  readonly skills: SkillShelf;
  /** The system prompt with the loaded skills' text after it. */
  withSkills(prompt: string): string;
  /** The turns it has finished. */
  turns(): number;
  /** Shows what runs while it is made (its prompt commands), and `idle` once they ended. */
  showing(state: "prompt commands" | "idle"): void;
  onEvent(e: AgentEvent): void;
}

/** A live agent and what its slot keeps of its making. */
export interface MadeAgent {
  readonly agent: Agent;
  /** Its toolsrv connection as it is now (dialled again after a loss). */
  toolsrv(): ToolsrvConn | undefined;
  /** Its profile's prompt, before skills, as last read (a compaction may read it again). */
  basePrompt(): string;
}

/**
 * Makes the live agent of `recipe` in `session`: its private TMPDIR, its profile loaded (prompt commands
 * run in its own sandbox), its backend, and its tools dialled at toolsrv — here or on the session's host,
 * dialled again at the first use after a loss. A saved session or a parked agent's snapshot carries on
 * (`Agent.resume`); otherwise the agent is new, with the slot's uname as its id.
 */
export async function makeAgent(
  session: SlotSession,
  env: AgentMaking,
  recipe: AgentRecipe,
): Promise<MadeAgent> {
  // Its tools are granted this directory: nobody else may own it, or a link in it, on a shared /tmp.
  await privateDir(env.tmpRoot);
  await privateDir(recipe.tmpDir);
  const { dir, config } = recipe.profile.booked;
  let toolsrv: () => ToolsrvConn | undefined = () => undefined;
  const checkpoints = env.checkpoints.forAgent(session, recipe.name);
  const load = profileLoader({
    agentsDir: dir,
    config: async () => config,
    backend: (name) => env.backends.fresh(recipe.backend ?? name),
    // Summaries go to the backend profile's compaction_model unless the agent profile names its own.
    compactionModel: (name) => env.backends.profile(recipe.backend ?? name).compactionModel,
    tools: async (config) => {
      const autoLoad = recipe.loaded ?? config.autoLoad ?? ["client_9p"];
      const remote = session.remote;
      // Here or on the session's host, toolsrv is dialled again at the first use after it was lost (it died
      // and was restarted, or the way to it broke), with the tools the agent had loaded.
      const dial = (address: string, loaded?: readonly string[]) =>
        dialToolsrv(session, env, recipe, address, loaded ?? autoLoad);
      const tools = await RedialingTools.open(
        remote ? env.remotes.route(remote.destination, dial) : env.toolsrv(dial),
      );
      toolsrv = () => tools.current;
      // The skill tools are answered here, in front of toolsrv's: skills are the daemon's. What may write
      // is checkpointed first.
      return new CheckpointingTools(new WithSkillTools(tools, recipe.skills), checkpoints, (error) =>
        recipe.onEvent({
          type: "info",
          message: `no checkpoint before this turn's writes: ${error.message}`,
        }),
      );
    },
    // Prompt commands read what the agent may have written: they run in its own sandbox.
    prompt: {
      ...env.prompt,
      runner: showingCommands(
        sandboxedPrompts(env.promptSandbox, { uname: recipe.uname, tmpDir: recipe.tmpDir, env: session.env }),
        () => recipe.showing("prompt commands"),
      ),
    },
    // A remote session's directory is on its host; its prompt commands and hooks run here, in its private
    // TMPDIR, where nothing of anyone else's lies.
    ...(session.remote && { commandsCwd: recipe.tmpDir }),
  });
  // Its prompt commands have run once the profile is loaded.
  const spec = await load(recipe.profile.name, { cwd: session.cwd }).finally(() => recipe.showing("idle"));
  if (recipe.model) spec.backend.setModel(recipe.model);
  let basePrompt = typeof spec.prompt === "string" ? spec.prompt : "";
  const reload = spec.reloadPrompt;
  const options: AgentOptions = {
    ...spec,
    prompt: recipe.withSkills(basePrompt),
    // A prompt read again after a compaction keeps the loaded skills after it, as the first one did.
    ...(reload && {
      reloadPrompt: async () => {
        basePrompt = await reload();
        return recipe.withSkills(basePrompt);
      },
    }),
    ...(recipe.maxSteps !== undefined && { maxSteps: recipe.maxSteps }),
    name: recipe.name,
    profile: recipe.profile.name,
    cwd: session.cwd,
    sessionId: session.id,
    persist: () => session.save(),
    journal: (entry) => session.journal(recipe.name, entry),
    readPlanStep: async () => session.planStep(),
    onEvent: (e) => {
      // Every request is charged to the session's budget and those of the sessions it was made from.
      if (e.type === "usage")
        session.charge(e.costUsd, e.request.inputTokens + e.request.outputTokens, recipe.uname);
      if (e.type === "user" && e.from === "user")
        checkpoints.turnStarted(turnStart(recipe.turns() + 1, agent.history));
      if (e.type === "turn") checkpoints.turnEnded();
      recipe.onEvent(e);
    },
    spending: { beforeRequest: (r) => session.spendingRefusal(r) },
    compaction: { snapshotDir: env.snapshotDir },
  };
  const agent = recipe.saved
    ? await Agent.resume(recipe.saved, options)
    : await Agent.create({ ...options, id: recipe.uname });
  return { agent, toolsrv: () => toolsrv(), basePrompt: () => basePrompt };
}

/**
 * Dials toolsrv at `address` as the agent with `autoLoad` loaded, and the session's own MCP servers, which
 * toolsrv runs for this agent alone (their tools loaded as they are listed). Its tools get their own TMPDIR, here or on
 * the session's host (made there for them), so the policy's `{TMPDIR}` grants that and never the shared
 * /tmp. A remote host's tools do not get the key that reaches olliesrv, which they cannot reach from there.
 */
async function dialToolsrv(
  session: SlotSession,
  env: AgentMaking,
  recipe: AgentRecipe,
  address: string,
  autoLoad: readonly string[],
): Promise<ToolsrvConn> {
  const remote = session.remote;
  const authenticator = remote ? env.remotes.authenticator : env.toolsrvAuthenticator;
  return ToolsrvConn.dial({
    address,
    uname: recipe.uname,
    autoLoad,
    cwd: session.cwd,
    env: remote
      ? { TMPDIR: await env.remotes.agentTmpDir(remote.destination, recipe.uname), ...session.env }
      : { TMPDIR: recipe.tmpDir, ...session.env, OLLIE_KEY: env.agentKey(recipe.uname) },
    ...(authenticator && { authenticator }),
    ...(session.mcpServers && { mcpServers: session.mcpServers }),
  });
}
