import type { ToolExecutor, ToolInfo, ToolResult } from "@ollie/agent-core";
import type { Skill } from "../config/skills.js";

/** What the skill tools act on: the skills there are, and one agent's loaded ones. */
export interface SkillShelf {
  /** Every skill, by name (the user's and the shipped ones). */
  skills(): ReadonlyMap<string, Skill>;
  /** The names the agent has loaded into its system prompt. */
  loaded(): readonly string[];
  /** Makes `names` the agent's loaded skills: its system prompt has them from its next model request. */
  setLoaded(names: readonly string[]): Promise<void>;
}

const noArguments = { type: "object", properties: {} };

/** The skill tools' schemas, always offered to the model beside toolsrv's tools. */
export const SKILL_TOOLS: readonly ToolInfo[] = [
  {
    name: "skill_list",
    description:
      "List the skills you can load, one per line: name, then what it is for ((loaded) after the ones you have).",
    parameters: noArguments,
    readSafe: true,
    tier: "cold",
  },
  {
    name: "skill_load",
    description:
      "Load a skill by name (see skill_list): its instructions join your system prompt from your next request on.",
    parameters: {
      type: "object",
      properties: { name: { type: "string", description: "The skill to load" } },
      required: ["name"],
    },
    tier: "hot",
  },
  {
    name: "skill_active",
    description: "List the skills you have loaded, one per line: name, then what it is for.",
    parameters: noArguments,
    readSafe: true,
    tier: "cold",
  },
];

const isSkillTool = (name: string) => SKILL_TOOLS.some((t) => t.name === name);

/**
 * An agent's tools with the skill tools in front: skills are olliesrv's (the agent's system prompt is
 * made here), so these are answered here, in the daemon, whatever toolsrv — local or on a remote host —
 * runs the rest. Like toolsrv's builtins they need no loading.
 */
export class WithSkillTools implements ToolExecutor {
  constructor(
    private readonly tools: ToolExecutor,
    private readonly shelf: SkillShelf,
  ) {}

  async list(signal?: AbortSignal): Promise<ToolInfo[]> {
    const rest = await this.tools.list(signal);
    return [...SKILL_TOOLS, ...rest.filter((t) => !isSkillTool(t.name))];
  }

  call(name: string, args: Record<string, unknown>, signal: AbortSignal): Promise<ToolResult> {
    if (!isSkillTool(name)) return this.tools.call(name, args, signal);
    return this.skillCall(name, args);
  }

  revision(signal?: AbortSignal): Promise<number> {
    return this.tools.revision(signal);
  }

  async close(): Promise<void> {
    await this.tools.close?.();
  }

  private async skillCall(name: string, args: Record<string, unknown>): Promise<ToolResult> {
    const skills = this.shelf.skills();
    const loaded = new Set(this.shelf.loaded());
    const line = (s: Skill) => `${s.name} — ${s.description}`;
    if (name === "skill_list") {
      if (skills.size === 0) return { output: "there are no skills\n" };
      const lines = [...skills.values()].map((s) => `${line(s)}${loaded.has(s.name) ? " (loaded)" : ""}`);
      return { output: `${lines.join("\n")}\n` };
    }
    if (name === "skill_active") {
      const active = [...loaded].flatMap((n) => skills.get(n) ?? []);
      if (active.length === 0) return { output: "no skills are loaded (skill_list shows them)\n" };
      return { output: `${active.map(line).join("\n")}\n` };
    }
    const wanted = typeof args.name === "string" ? args.name.trim() : "";
    const known = [...skills.keys()].join(", ") || "none";
    if (wanted === "") return { output: `skill_load needs name: one of ${known}`, isError: true };
    const skill = skills.get(wanted);
    if (!skill) return { output: `no skill named ${wanted}: the skills are ${known}`, isError: true };
    if (loaded.has(skill.name)) return { output: `the skill ${skill.name} is already loaded\n` };
    await this.shelf.setLoaded([...loaded, skill.name]);
    return {
      output: `loaded the skill ${skill.name}: its instructions are in your system prompt from your next request on\n`,
    };
  }
}
